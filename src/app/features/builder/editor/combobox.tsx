import {
  type ClipboardEvent,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from "react";

export interface ComboOption {
  value: string;
  label: string;
  /** Options with the same group are listed under its heading (in the order given). */
  group?: string;
  /** A quiet note after the label ("number", "has / has not"). */
  hint?: string;
}

export interface ComboboxProps {
  /** Accessible name of the input. */
  label: string;
  options: readonly ComboOption[];
  /**
   * Select mode (no `onTextChange`): the text shown while the list is closed, e.g. the chosen
   * column's label; typing filters the options and only a choice changes anything.
   * Free-text mode (`onTextChange` given): the input's text itself; options are suggestions.
   */
  text: string;
  /** The chosen option's value, marked in the list. */
  selected?: string | undefined;
  onSelect(option: ComboOption): void;
  onTextChange?: (text: string) => void;
  /** Enter with no option highlighted (free-text mode): e.g. add the typed entry to a list. */
  onEnter?: () => void;
  onPaste?: (event: ClipboardEvent<HTMLInputElement>) => void;
  /** The input took focus (e.g. to start loading suggestions only when someone looks for them). */
  onFocus?: () => void;
  /** Extra key handling before the combobox's own (call preventDefault to take the key). */
  onKeyDown?: (event: KeyboardEvent<HTMLInputElement>) => void;
  placeholder?: string;
  invalid?: boolean;
  describedBy?: string | undefined;
  dataField?: string;
  className?: string;
  /** Said in the list when nothing matches. */
  emptyText?: string;
  /** Said at the top of the list (e.g. "Loading values…"). */
  status?: ReactNode;
  /** At most this many options are rendered; the rest are reached by typing. */
  maxShown?: number;
}

/** Typed text shorter than this highlights only an option it equals (see `typedMatch`). */
const BEGUN_MIN = 3;

/**
 * In free-text mode, the option that typing highlights by itself: the one whose label or value is
 * the text typed, else the first that begins with it (so Enter on "Ger" takes "Germany"). A text
 * that begins none is left as typed, and so is one of fewer than BEGUN_MIN characters: "UK" is an
 * abbreviation far more often than the start of "Ukraine", and Enter must not swap one country
 * for another.
 */
function typedMatch(options: readonly ComboOption[], text: string): number {
  const q = text.trim().toLowerCase();
  if (q === "") return -1;
  const words = (option: ComboOption) => [option.label.toLowerCase(), option.value.toLowerCase()];
  const exact = options.findIndex((option) => words(option).includes(q));
  if (exact >= 0 || q.length < BEGUN_MIN) return exact;
  return options.findIndex((option) => words(option).some((w) => w.startsWith(q)));
}

function matches(option: ComboOption, query: string): boolean {
  if (query === "") return true;
  const q = query.toLowerCase();
  return option.label.toLowerCase().includes(q) || option.value.toLowerCase().includes(q);
}

/**
 * An ARIA 1.2 combobox with a listbox popup: type to filter, Up / Down to move, Enter or Tab to
 * choose the highlighted option, Escape to close. Focus stays in the input (the highlighted option
 * is its active descendant). In free-text mode typing highlights the suggestion it begins (see
 * `typedMatch`); Escape, then Enter, takes the text as typed.
 */
export function Combobox({
  label,
  options,
  text,
  selected,
  onSelect,
  onTextChange,
  onEnter,
  onPaste,
  onFocus,
  onKeyDown,
  placeholder,
  invalid,
  describedBy,
  dataField,
  className,
  emptyText = "Nothing matches",
  status,
  maxShown = 200,
}: ComboboxProps) {
  const free = onTextChange !== undefined;
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  /** The highlighted option's index, or "typed": the one the text typed highlights (free text). */
  const [chosenIndex, setActive] = useState<number | "typed">(-1);
  const listRef = useRef<HTMLDivElement>(null);

  // Free text filters its suggestions only once typed into: opened on a value already there, the
  // list shows every choice, not just the one that value matches.
  const [typed, setTyped] = useState(false);
  const filter = free ? (typed ? text : "") : query;
  const filtered = useMemo(() => options.filter((option) => matches(option, filter)), [options, filter]);
  const shown = filtered.length > maxShown ? filtered.slice(0, maxShown) : filtered;
  const hidden = filtered.length - shown.length;
  const active = chosenIndex === "typed" ? (typed ? typedMatch(shown, text) : -1) : chosenIndex;
  const activeOption = open ? shown[active] : undefined;
  const optionId = (index: number) => `${listId}-option-${index}`;

  useEffect(() => {
    if (!open || active < 0) return;
    const element = listRef.current?.querySelector<HTMLElement>(`[data-index="${active}"]`);
    element?.scrollIntoView?.({ block: "nearest" });
  }, [open, active]);

  const openList = (startAt?: number) => {
    setOpen(true);
    setTyped(false);
    const chosen = selected === undefined ? -1 : shown.findIndex((option) => option.value === selected);
    setActive(startAt ?? chosen);
  };
  const close = () => {
    setOpen(false);
    setQuery("");
    setActive(-1);
  };
  const choose = (option: ComboOption) => {
    onSelect(option);
    close();
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    onKeyDown?.(event);
    if (event.defaultPrevented) return;
    if (event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case "ArrowDown":
        // A closed list leaves Alt+Down to the editor (it moves the row), as Alt+Up is.
        if (event.altKey && !open) break;
        event.preventDefault();
        if (!open || event.altKey) openList(open ? active : undefined);
        else setActive(shown.length === 0 ? -1 : active >= shown.length - 1 ? 0 : active + 1);
        break;
      case "ArrowUp":
        if (event.altKey) {
          if (open) {
            event.preventDefault();
            close();
          }
          break;
        }
        event.preventDefault();
        if (!open) openList(shown.length - 1);
        else setActive(shown.length === 0 ? -1 : active <= 0 ? shown.length - 1 : active - 1);
        break;
      case "Enter":
        if (open && activeOption) {
          event.preventDefault();
          choose(activeOption);
        } else if (onEnter) {
          event.preventDefault();
          onEnter();
          if (open) close();
        } else if (open) {
          event.preventDefault();
          close();
        }
        break;
      case "Escape":
        if (open) {
          event.preventDefault();
          event.stopPropagation();
          close();
        }
        break;
      case "Tab":
        // Takes the highlighted option, as Enter does, and lets focus move on.
        if (activeOption) choose(activeOption);
        else if (open) close();
        break;
    }
  };

  let lastGroup: string | undefined;
  const items: ReactNode[] = [];
  const groups: { name: string | undefined; items: ReactNode[] }[] = [];
  // Options exist only while the list is open: a closed picker in each of 300 rows would otherwise
  // keep some 70 hidden elements apiece, made again with every new row.
  (open ? shown : []).forEach((option, index) => {
    if (groups.length === 0 || option.group !== lastGroup) {
      groups.push({ name: option.group, items: [] });
      lastGroup = option.group;
    }
    groups.at(-1)!.items.push(
      // biome-ignore lint/a11y/useKeyWithClickEvents: keys are handled on the input (active descendant)
      <div
        key={option.value}
        id={optionId(index)}
        role="option"
        tabIndex={-1}
        aria-selected={index === active}
        data-index={index}
        data-chosen={option.value === selected || undefined}
        className="fe-option"
        onMouseDown={(event) => event.preventDefault()}
        onMouseMove={() => setActive(index)}
        onClick={() => choose(option)}
      >
        <span>{option.label}</span>
        {option.hint ? <span className="fe-option-hint">{option.hint}</span> : null}
      </div>,
    );
  });
  for (const group of groups) {
    if (group.name === undefined) items.push(...group.items);
    else
      items.push(
        // biome-ignore lint/a11y/useSemanticElements: an option group inside a listbox (ARIA), not a form fieldset
        <div
          key={`group-${group.name}-${items.length}`}
          role="group"
          aria-label={group.name}
          className="fe-option-group"
        >
          <div className="fe-option-group-label" aria-hidden="true">
            {group.name}
          </div>
          {group.items}
        </div>,
      );
  }

  return (
    <div className={`fe-combobox${className ? ` ${className}` : ""}`}>
      <input
        type="text"
        role="combobox"
        className="fe-input"
        aria-label={label}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeOption ? optionId(active) : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        spellCheck={false}
        data-field={dataField}
        placeholder={free ? placeholder : open && query === "" ? text || placeholder : placeholder}
        value={free ? text : open ? query : text}
        onChange={(event) => {
          if (free) {
            onTextChange(event.target.value);
            setTyped(true);
          } else setQuery(event.target.value);
          if (!open) setOpen(true);
          setActive(free ? "typed" : 0);
        }}
        onFocus={(event) => {
          if (!free) event.target.select();
          onFocus?.();
        }}
        onClick={() => (open ? undefined : openList())}
        onBlur={close}
        onKeyDown={handleKeyDown}
        onPaste={onPaste}
      />
      <div
        ref={listRef}
        id={listId}
        role="listbox"
        aria-label={label}
        className="fe-listbox"
        hidden={!open || (free && shown.length === 0 && !status)}
      >
        {status ? <div className="fe-listbox-status">{status}</div> : null}
        {items}
        {shown.length === 0 && !status ? <div className="fe-listbox-status">{emptyText}</div> : null}
        {hidden > 0 ? (
          <div className="fe-listbox-status">{`Type to narrow down (${hidden} more)`}</div>
        ) : null}
      </div>
    </div>
  );
}
