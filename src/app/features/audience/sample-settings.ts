import { useCallback } from "react";
import { z } from "zod";
import { COLUMNS, getColumn, labelOf } from "../../../contract/columns";
import { DEFAULT_VIEW_COLUMNS } from "../../../contract/inferred";
import { storedValue, useStoredValue } from "../../lib/store";

/** Sample sizes a person may choose; each row of a sample spends one row of the daily budget. */
export const SAMPLE_SIZES = [10, 25, 50, 100] as const;
export type SampleSize = (typeof SAMPLE_SIZES)[number];
export const DEFAULT_SAMPLE_SIZE: SampleSize = 25;

/** What the next sample asks for. */
export interface SampleSettings {
  limit: SampleSize;
  /** Request columns: catalogue names (EMAIL_ADDRESS_PER / CELLPHONE_PER come back as flags). */
  columns: readonly string[];
  /** Adds the similarity `score` (semantic and lookalike rules). */
  includeScores: boolean;
}

export const DEFAULT_SAMPLE_SETTINGS: SampleSettings = {
  limit: DEFAULT_SAMPLE_SIZE,
  // The contact id is always asked for (selection needs it), shown only when chosen: people read names.
  columns: DEFAULT_VIEW_COLUMNS.filter((name) => name !== "RBID_PAO"),
  includeScores: false,
};

/** One entry of the column chooser. */
export interface ColumnChoice {
  /** The name sent in `columns`. */
  name: string;
  label: string;
  /** Masked: the sample says only whether one exists. */
  flag?: boolean;
}

/** The catalogue's unmasked columns, then the Email and Mobile flags. */
export const COLUMN_CHOICES: readonly ColumnChoice[] = [
  ...COLUMNS.filter((c) => !c.maskedAs).map((c) => ({ name: c.name, label: c.label })),
  { name: "EMAIL_ADDRESS_PER", label: "Email (whether there is one)", flag: true },
  { name: "CELLPHONE_PER", label: "Mobile (whether there is one)", flag: true },
];

const CHOICES = new Set(COLUMN_CHOICES.map((c) => c.name));

/**
 * Columns as a request takes them: RBID_PAO first, then the others in the order they were chosen
 * (so a newly ticked column appears at the end of the table), without duplicates or unknown names.
 */
export function normaliseColumns(columns: readonly string[]): string[] {
  return [...new Set(["RBID_PAO", ...chosenColumns(columns)])];
}

/** The columns shown, as chosen: known names, once each, in the order chosen (the id only if chosen). */
export function chosenColumns(columns: readonly string[]): string[] {
  return [...new Set(columns.filter((name) => CHOICES.has(name)))];
}

export function columnLabel(name: string): string {
  return getColumn(name)?.label ?? labelOf(name);
}

export function sameSettings(a: SampleSettings, b: SampleSettings): boolean {
  return (
    a.limit === b.limit &&
    a.includeScores === b.includeScores &&
    normaliseColumns(a.columns).sort().join(",") === normaliseColumns(b.columns).sort().join(",")
  );
}

export const SAMPLE_SETTINGS_STORAGE_KEY = "audience-builder:sample-settings";

const storedSchema = z.object({
  limit: z.union(SAMPLE_SIZES.map((n) => z.literal(n))).catch(DEFAULT_SAMPLE_SIZE),
  columns: z.array(z.string()).catch([...DEFAULT_SAMPLE_SETTINGS.columns]),
  includeScores: z.boolean().catch(false),
});

const sampleSettingsStore = storedValue(
  SAMPLE_SETTINGS_STORAGE_KEY,
  storedSchema.transform((stored): SampleSettings => ({ ...stored, columns: chosenColumns(stored.columns) })),
);

/** The person's last choice of size, columns and scores, or the defaults. */
export function loadSampleSettings(): SampleSettings {
  return sampleSettingsStore.get() ?? DEFAULT_SAMPLE_SETTINGS;
}

/** The chosen sample settings, kept on this device (and in step across tabs). */
export function useSampleSettings(): [SampleSettings, (next: SampleSettings) => void] {
  const settings = useStoredValue(sampleSettingsStore) ?? DEFAULT_SAMPLE_SETTINGS;
  const update = useCallback((next: SampleSettings) => {
    // Storage refused: the store keeps the choice for this page.
    sampleSettingsStore.set({ ...next, columns: chosenColumns(next.columns) });
  }, []);
  return [settings, update];
}
