import { useId } from "react";
import { ALWAYS_COLUMN, COLUMN_CHOICES, CRM_PICKED_COLUMNS, DEFAULT_PICKED_COLUMNS } from "./export-settings";

/**
 * Which columns the rows carry: a folded list of checkboxes (the default set ticked). Email and
 * mobile are not here: the reveal choice adds them, because they are what is paid for.
 */
export function ColumnsField({
  value,
  onChange,
  legend = "Columns",
}: {
  value: readonly string[];
  onChange: (columns: string[]) => void;
  legend?: string;
}) {
  const id = useId();
  const chosen = new Set([...value, ALWAYS_COLUMN]);
  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    onChange(COLUMN_CHOICES.map((c) => c.name).filter((n) => next.has(n)));
  };
  return (
    <details className="checkout-columns">
      <summary className="checkout-columns-summary">
        {legend}: {chosen.size} chosen
      </summary>
      <fieldset className="checkout-fieldset">
        <legend className="visually-hidden">{legend}</legend>
        <p className="hint-text checkout-hint">Email and mobile come with the reveal choice above.</p>
        <div className="checkout-columns-grid">
          {COLUMN_CHOICES.map((column) => {
            const always = column.name === ALWAYS_COLUMN;
            return (
              <label key={column.name} className="checkout-check" htmlFor={`${id}-${column.name}`}>
                <input
                  id={`${id}-${column.name}`}
                  type="checkbox"
                  checked={chosen.has(column.name)}
                  disabled={always}
                  onChange={(event) => toggle(column.name, event.target.checked)}
                />
                {column.label}
                {always ? <span className="hint-text checkout-hint"> (always)</span> : null}
              </label>
            );
          })}
        </div>
        <div className="checkout-columns-presets">
          <button
            type="button"
            className="button button-quiet"
            onClick={() => onChange([...DEFAULT_PICKED_COLUMNS])}
          >
            Back to the default columns
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={() => onChange([ALWAYS_COLUMN, ...CRM_PICKED_COLUMNS])}
          >
            Columns for a CRM
          </button>
        </div>
      </fieldset>
    </details>
  );
}
