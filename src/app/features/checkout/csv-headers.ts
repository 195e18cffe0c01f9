import { useCallback } from "react";
import { z } from "zod";
import { CSV_HEADER_STYLES, type CsvHeaderStyle } from "../../../contract/columns";
import { storedValue, useStoredValue } from "../../lib/store";

/**
 * How the CSV files of Checkout name their columns (the rows of an Enrich or a Preview, an export's
 * file): by label for people, by the service's names for files loaded back into systems that
 * expect them, by HubSpot's or Salesforce's field names for their importers (contract/columns.ts,
 * `CRM_FIELD_NAMES`). One choice for all of them, kept on this device.
 */
export const CSV_HEADERS_KEY = "ab.checkout.csv-headers.v1";
export const DEFAULT_CSV_HEADERS: CsvHeaderStyle = "labels";

export const CSV_HEADER_CHOICES: readonly { style: CsvHeaderStyle; label: string }[] = [
  { style: "labels", label: "Readable labels (Contact ID…)" },
  { style: "names", label: "Service column names (RBID_PAO…)" },
  { style: "hubspot", label: "HubSpot import names (firstname, jobtitle…)" },
  { style: "salesforce", label: "Salesforce import names (FirstName, Title…)" },
];

const store = storedValue(CSV_HEADERS_KEY, z.enum(CSV_HEADER_STYLES));

/** The chosen header style (the default until one is chosen), with a setter that keeps it. */
export function useCsvHeaders(): [CsvHeaderStyle, (next: CsvHeaderStyle) => void] {
  const style = useStoredValue(store) ?? DEFAULT_CSV_HEADERS;
  // Storage refused: the store keeps the choice for this page.
  const update = useCallback((next: CsvHeaderStyle) => void store.set(next), []);
  return [style, update];
}
