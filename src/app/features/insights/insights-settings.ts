import { useCallback } from "react";
import { z } from "zod";
import { browserStorage, storedValue, useStoredValue } from "../../lib/store";
import { DEFAULT_FIELDS, DEFAULT_GROUP_FIELD, isGroupable, normaliseFields } from "./buckets";

/** What a person chose to see; kept on this device, shared by the Builder's panel and the page. */
export interface InsightsSettings {
  /** The Builder's panel is open (closed, it asks nothing). */
  open: boolean;
  /** The breakdown's column. */
  groupField: string;
  /** The columns listed with their top values. */
  fields: readonly string[];
}

export const INSIGHTS_SETTINGS_KEY = "ab.insights.v1";

export const DEFAULT_INSIGHTS_SETTINGS: InsightsSettings = {
  open: true,
  groupField: DEFAULT_GROUP_FIELD,
  fields: DEFAULT_FIELDS,
};

/** Each part checked on its own: an unknown column falls back to the default. */
const settingsSchema = z.object({
  open: z.boolean().catch(DEFAULT_INSIGHTS_SETTINGS.open),
  groupField: z.string().refine(isGroupable).catch(DEFAULT_GROUP_FIELD),
  fields: z
    .array(z.unknown())
    .transform((fields): readonly string[] =>
      normaliseFields(fields.filter((f): f is string => typeof f === "string")),
    )
    .catch(() => DEFAULT_FIELDS),
});

export function insightsSettingsStore(storage: () => Storage | null = browserStorage) {
  return storedValue(INSIGHTS_SETTINGS_KEY, settingsSchema, storage);
}
const settingsStore = insightsSettingsStore();

/** The stored settings, or the defaults. */
export function readInsightsSettings(store: Storage | null = browserStorage()): InsightsSettings {
  return insightsSettingsStore(() => store).get() ?? DEFAULT_INSIGHTS_SETTINGS;
}

/** The settings with a setter that keeps them; a storage that refuses only loses them at reload. */
export function useInsightsSettings(): [InsightsSettings, (patch: Partial<InsightsSettings>) => void] {
  const settings = useStoredValue(settingsStore) ?? DEFAULT_INSIGHTS_SETTINGS;
  const update = useCallback((patch: Partial<InsightsSettings>) => {
    settingsStore.set({ ...(settingsStore.get() ?? DEFAULT_INSIGHTS_SETTINGS), ...patch });
  }, []);
  return [settings, update];
}
