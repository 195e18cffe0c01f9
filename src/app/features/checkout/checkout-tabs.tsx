import { type KeyboardEvent, type ReactNode, useId, useRef } from "react";

export interface CheckoutTab {
  id: string;
  label: string;
  /** One line under the tabs saying what this one is for. */
  lead: string;
  content: ReactNode;
}

/**
 * Tabs (WAI-ARIA pattern: arrow keys, Home, End). Every panel stays mounted, only hidden, so a
 * purchase under way in one tab keeps going, whichever tab is shown.
 */
export function CheckoutTabs({
  tabs,
  selected,
  onSelect,
  label,
}: {
  tabs: readonly CheckoutTab[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
}) {
  const base = useId();
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    let next: number | null = null;
    if (event.key === "ArrowRight") next = (index + 1) % tabs.length;
    else if (event.key === "ArrowLeft") next = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = tabs.length - 1;
    if (next === null) return;
    event.preventDefault();
    const tab = tabs[next]!;
    onSelect(tab.id);
    refs.current.get(tab.id)?.focus();
  };
  return (
    <div className="checkout-tabs">
      <div className="checkout-tablist" role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            ref={(element) => {
              if (element) refs.current.set(tab.id, element);
              else refs.current.delete(tab.id);
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${tab.id}`}
            aria-controls={`${base}-panel-${tab.id}`}
            aria-selected={tab.id === selected}
            tabIndex={tab.id === selected ? 0 : -1}
            className="checkout-tab"
            onClick={() => onSelect(tab.id)}
            onKeyDown={(event) => move(event, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`${base}-panel-${tab.id}`}
          aria-labelledby={`${base}-tab-${tab.id}`}
          hidden={tab.id !== selected}
          className="checkout-tabpanel"
        >
          <p className="checkout-tab-lead">{tab.lead}</p>
          {tab.content}
        </div>
      ))}
    </div>
  );
}
