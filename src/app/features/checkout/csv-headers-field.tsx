import { useId } from "react";
import type { CsvHeaderStyle } from "../../../contract/columns";
import { CSV_HEADER_CHOICES, useCsvHeaders } from "./csv-headers";

/** The choice of the CSV files' header row, beside a download; every such field shows one setting. */
export function CsvHeadersField() {
  const id = useId();
  const [style, setStyle] = useCsvHeaders();
  return (
    <span className="checkout-headers-field">
      <label htmlFor={id} className="field-label">
        Column headers
      </label>
      <select
        id={id}
        className="input"
        value={style}
        onChange={(event) => setStyle(event.target.value as CsvHeaderStyle)}
      >
        {CSV_HEADER_CHOICES.map(({ style: value, label }) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </span>
  );
}
