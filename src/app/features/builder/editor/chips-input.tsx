import { type ClipboardEvent, type KeyboardEvent, useId, useMemo, useRef, useState } from "react";
import { VALUE_LIST_MAX } from "../../../../contract/inferred";
import { afterPress } from "./after-press";
import { Combobox, type ComboOption } from "./combobox";
import { foldedList, mergeIntoList, mergeMessage, parseWholeNumber, splitList } from "./value-list";

export interface ChipsInputProps {
  /** Accessible name of the entry field, e.g. "Values of condition 2". */
  label: string;
  values: readonly string[];
  onChange(values: string[]): void;
  /** Entries must be whole numbers (flagged in place when they are not). */
  integer?: boolean;
  /** Values offered while typing (a categorical column's), with how many people carry each. */
  suggestions?: readonly { value: string; hint?: string }[] | undefined;
  suggestionsStatus?: string | undefined;
  /** The text being typed, for suggestions that follow it. */
  onDraftChange?: (draft: string) => void;
  onFocus?: () => void;
  /** Entries (lower case) that match no one: marked on their chips. */
  absent?: ReadonlySet<string>;
  invalid?: boolean;
  describedBy?: string | undefined;
  dataField?: string;
}

/** Chips beyond this many are folded behind "Show all": a pasted list can hold 10,000. */
const CHIPS_SHOWN = 60;

/**
 * A list of values as chips. Type and press Enter or a comma to add; paste a list separated by
 * commas, semicolons, tabs or new lines (a spreadsheet column) to add them all, deduplicated, up to
 * VALUE_LIST_MAX, with a message when some were left out; Backspace in the empty field removes the
 * last chip.
 */
export function ChipsInput({
  label,
  values,
  onChange,
  integer = false,
  suggestions,
  suggestionsStatus,
  onDraftChange,
  onFocus,
  absent,
  invalid,
  describedBy,
  dataField,
}: ChipsInputProps) {
  const [draft, setDraftState] = useState("");
  const setDraft = (text: string) => {
    setDraftState(text);
    onDraftChange?.(text);
  };
  const [message, setMessage] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  // Open (every chip shown, with "Clear all") while focus is in it; folded to one line otherwise,
  // once the press that took focus away is over (folding moves what is below it).
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const messageId = useId();

  const add = (entries: readonly string[]) => {
    if (entries.length === 0) return;
    const result = mergeIntoList(values, entries, VALUE_LIST_MAX);
    if (result.list.length !== values.length) onChange(result.list);
    setMessage(mergeMessage(result, VALUE_LIST_MAX));
  };
  const addDraft = () => {
    add(splitList(draft));
    setDraft("");
  };
  const remove = (index: number) => {
    const next = values.slice();
    next.splice(index, 1);
    onChange(next);
    setMessage(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "," || event.key === ";") {
      event.preventDefault();
      addDraft();
    } else if (
      event.key === "Backspace" &&
      draft === "" &&
      values.length > 0 &&
      !event.ctrlKey &&
      !event.metaKey
    ) {
      event.preventDefault();
      remove(values.length - 1);
    }
  };
  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = event.clipboardData.getData("text");
    if (!/[,;\t\r\n]/.test(pasted)) return; // one value: let it land in the field
    event.preventDefault();
    add(splitList(`${draft}${pasted}`));
    setDraft("");
  };

  const options = useMemo<ComboOption[]>(() => {
    if (!suggestions) return [];
    const taken = new Set(values.map((v) => v.toLowerCase()));
    return suggestions
      .filter((s) => !taken.has(s.value.toLowerCase()))
      .map((s) =>
        s.hint ? { value: s.value, label: s.value, hint: s.hint } : { value: s.value, label: s.value },
      );
  }, [suggestions, values]);

  const visible = showAll ? values : values.slice(0, CHIPS_SHOWN);
  // A loaded list may repeat a value: number the repeats so that keys stay unique.
  const keys = useMemo(() => {
    const seen = new Map<string, number>();
    return values.map((value) => {
      const n = (seen.get(value) ?? 0) + 1;
      seen.set(value, n);
      return n === 1 ? value : `${value}\u0000${n}`;
    });
  }, [values]);
  const describe = [describedBy, message ? messageId : undefined].filter(Boolean).join(" ") || undefined;
  const folded = foldedList(values);
  // Short beside a folded list, which takes the line.
  const placeholder = values.length === 0 ? "Type or paste values" : open ? "Add a value" : "Add…";

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus entering and leaving its fields, not an interaction of its own
    <div
      ref={box}
      className="fe-chips"
      data-invalid={invalid || undefined}
      data-open={open || undefined}
      onFocus={() => setOpen(true)}
      onBlur={(event) => {
        if (event.currentTarget.contains(event.relatedTarget as Node | null)) return;
        afterPress(() => {
          if (!box.current?.contains(document.activeElement)) setOpen(false);
        });
      }}
    >
      {values.length > 0 && !open ? (
        // What a folded list holds, in words ("Germany, France +1"); the chips below say it to a
        // screen reader, and a click (or Tab into the field) opens it.
        <span
          className="fe-chips-folded"
          aria-hidden="true"
          title={values.length > 1 ? values.slice(0, 50).join(", ") : undefined}
          onClick={() => box.current?.querySelector<HTMLInputElement>("input")?.focus()}
        >
          <span className="fe-chips-folded-names">{folded.names}</span>
          {folded.more > 0 ? <span className="fe-chips-folded-more">{`+${folded.more}`}</span> : null}
        </span>
      ) : null}
      {values.length > 0 ? (
        <ul className="fe-chip-list" aria-label={`${label}: ${values.length} chosen`}>
          {visible.map((value, index) => {
            const bad = integer && parseWholeNumber(value) === null;
            const nobody = absent?.has(value.trim().toLowerCase()) === true;
            return (
              <li
                key={keys[index]}
                className="fe-chip"
                data-invalid={bad || undefined}
                data-absent={nobody || undefined}
              >
                <span>{value}</span>
                {bad ? <span className="visually-hidden"> (not a whole number)</span> : null}
                {nobody ? <span className="visually-hidden"> (matches no one)</span> : null}
                <button
                  type="button"
                  className="fe-chip-remove"
                  aria-label={`Remove ${value}`}
                  onClick={() => remove(index)}
                >
                  ×
                </button>
              </li>
            );
          })}
          {values.length > visible.length ? (
            <li className="fe-chip-tool">
              <button type="button" className="fe-link-button" onClick={() => setShowAll(true)}>
                {`Show all ${values.length}`}
              </button>
            </li>
          ) : null}
          {values.length > 1 ? (
            <li className="fe-chip-tool">
              <button
                type="button"
                className="fe-link-button"
                onClick={() => {
                  onChange([]);
                  setMessage(null);
                }}
              >
                Clear all
              </button>
            </li>
          ) : null}
        </ul>
      ) : null}
      {suggestions !== undefined || suggestionsStatus !== undefined ? (
        <Combobox
          label={label}
          options={options}
          text={draft}
          onTextChange={setDraft}
          onSelect={(option) => {
            add([option.value]);
            setDraft("");
          }}
          onEnter={addDraft}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          {...(onFocus ? { onFocus } : {})}
          placeholder={placeholder}
          invalid={invalid ?? false}
          describedBy={describe}
          dataField={dataField}
          status={suggestionsStatus}
        />
      ) : (
        <input
          type="text"
          className="fe-input"
          aria-label={label}
          aria-invalid={invalid || undefined}
          aria-describedby={describe}
          inputMode={integer ? "numeric" : undefined}
          data-field={dataField}
          placeholder={placeholder}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            onKeyDown(event);
            if (!event.defaultPrevented && event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
              event.preventDefault();
              addDraft();
            }
          }}
          onBlur={() => {
            if (draft.trim() !== "") addDraft();
          }}
          onPaste={onPaste}
        />
      )}
      {message ? (
        <p id={messageId} className="fe-note" role="status">
          {message}
        </p>
      ) : null}
    </div>
  );
}
