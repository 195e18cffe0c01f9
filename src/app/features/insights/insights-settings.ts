import { useCallback, useState } from "react";
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

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** The stored settings, each part checked on its own (an unknown column falls back to the default). */
export function readInsightsSettings(store: Storage | null = storage()): InsightsSettings {
  let value: unknown = null;
  try {
    const raw = store?.getItem(INSIGHTS_SETTINGS_KEY);
    value = raw ? JSON.parse(raw) : null;
  } catch {
    value = null;
  }
  const record = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  return {
    open: typeof record.open === "boolean" ? record.open : DEFAULT_INSIGHTS_SETTINGS.open,
    groupField:
      typeof record.groupField === "string" && isGroupable(record.groupField)
        ? record.groupField
        : DEFAULT_GROUP_FIELD,
    fields: Array.isArray(record.fields)
      ? normaliseFields(record.fields.filter((f): f is string => typeof f === "string"))
      : DEFAULT_FIELDS,
  };
}

/** The settings with a setter that keeps them; a storage that refuses only loses them at reload. */
export function useInsightsSettings(): [InsightsSettings, (patch: Partial<InsightsSettings>) => void] {
  const [settings, setSettings] = useState(readInsightsSettings);
  const update = useCallback((patch: Partial<InsightsSettings>) => {
    setSettings((current) => {
      const next = { ...current, ...patch };
      try {
        storage()?.setItem(INSIGHTS_SETTINGS_KEY, JSON.stringify(next));
      } catch {
        // Private mode or a full storage: the choice still holds for this visit.
      }
      return next;
    });
  }, []);
  return [settings, update];
}
