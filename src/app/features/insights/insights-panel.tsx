import { useCallback, useEffect, useId, useMemo, useState } from "react";
import { canonicalKey } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { BreakdownSection } from "./breakdown-section";
import { type AddCondition, type BucketValue, conditionWords } from "./buckets";
import { FieldsSection } from "./fields-section";
import { type InsightsRequest, useCachedCheck, useInsightsSection, useSettledAudience } from "./insights";
import { useInsightsSettings } from "./insights-settings";
import { SummarySection } from "./summary-section";
import "./insights-panel.css";

export interface InsightsPanelProps {
  /** The audience's filter, as the page holds it. */
  filter: GroupNode;
  /** False while a rule is unfinished: nothing is asked for an invalid tree. */
  valid: boolean;
  /** Why the tree cannot be sent, naming the rule. */
  blockedBy?: string | undefined;
  /**
   * The count of this filter has its answer (or failed): insights wait behind it, so the number a
   * person is watching comes first. A page without a count passes true.
   */
  countSettled: boolean;
  /** Adds a value as a condition; the page decides how (insights never touch the tree). */
  onAddCondition: AddCondition;
  /** "panel": beside the Builder, collapsible, the first rows of the breakdown. "page": everything. */
  variant?: "panel" | "page";
  /** One line on what a click on a value does. */
  addHint?: string;
}

interface Notice {
  text: string;
  tone: "info" | "error";
  /** The audience it was said about. */
  key: string;
  /** The add is about to change the audience: that change keeps the notice. */
  awaitsChange: boolean;
}

const SUMMARY = { section: "summary" } as const satisfies InsightsRequest;

/**
 * Who is in the audience: a summary, a breakdown by a chosen column drawn as bars, and the top
 * values of a few columns. It follows the filter (debounced, cached by canonical filter, behind
 * the count), and a click on any value adds it as a condition through `onAddCondition`.
 */
export function InsightsPanel({
  filter,
  valid,
  blockedBy,
  countSettled,
  onAddCondition,
  variant = "panel",
  addHint = "Select a value to add it as a condition.",
}: InsightsPanelProps) {
  const id = useId();
  const [settings, updateSettings] = useInsightsSettings();
  const open = variant === "page" || settings.open;
  const cached = useCachedCheck();
  const { settled, waiting } = useSettledAudience(filter, valid, cached);
  const gate = { valid, countSettled, open };
  const breakdownRequest = useMemo(
    () => ({ section: "breakdown", groupField: settings.groupField }) as const,
    [settings.groupField],
  );
  const fieldsRequest = useMemo(
    () => (settings.fields.length > 0 ? ({ section: "fields", fields: settings.fields } as const) : null),
    [settings.fields],
  );
  const summary = useInsightsSection(settled, waiting, SUMMARY, gate);
  const breakdown = useInsightsSection(settled, waiting, breakdownRequest, gate);
  const fields = useInsightsSection(settled, waiting, fieldsRequest, gate);
  const [notice, setNotice] = useState<Notice | null>(null);
  const key = canonicalKey(filter);

  // What was said about an add holds until the audience changes otherwise (an edit, an undo).
  useEffect(() => {
    setNotice((current) => {
      if (!current || current.key === key) return current;
      return current.awaitsChange ? { ...current, key, awaitsChange: false } : null;
    });
  }, [key]);

  const add = useCallback(
    (column: string, value: BucketValue) => {
      const words = conditionWords(column, value);
      const result = onAddCondition(column, value);
      if (result === undefined) return;
      const said = { key, awaitsChange: false, tone: "info" } as const;
      if (!result.ok)
        setNotice({ ...said, tone: "error", text: `“${words}” could not be added: ${result.error}` });
      else if (!result.changed) setNotice({ ...said, text: `“${words}” is already part of the audience.` });
      else setNotice({ ...said, awaitsChange: true, text: `Added “${words}” to the audience.` });
    },
    [onAddCondition, key],
  );

  const nothingYet = summary.data === undefined && breakdown.data === undefined && fields.data === undefined;
  const busy = summary.isFetching || breakdown.isFetching || fields.isFetching || (valid && waiting);

  return (
    <section
      className={`card insights-panel insights-${variant}`}
      aria-labelledby={`${id}-title`}
      data-state={!valid ? "blocked" : busy ? "updating" : "ready"}
    >
      <div className="insights-header">
        <div className="insights-intro">
          {variant === "panel" ? (
            <h2 className="card-title insights-title" id={`${id}-title`}>
              Insights
            </h2>
          ) : (
            <h2 className="visually-hidden" id={`${id}-title`}>
              Insights
            </h2>
          )}
          {open ? (
            <p className="insights-lead muted">
              Who is in this audience. <span id={`${id}-hint`}>{addHint}</span>{" "}
              {busy && !nothingYet ? <span className="insights-updating">Updating…</span> : null}
            </p>
          ) : null}
          {/* Always in the page, so that what is put in it is announced. */}
          <div role="status" aria-live="polite">
            {notice ? (
              <p className={notice.tone === "error" ? "insights-notice is-error" : "insights-notice"}>
                {notice.text}
              </p>
            ) : null}
          </div>
        </div>
        {variant === "panel" ? (
          <button
            type="button"
            className="button button-quiet"
            aria-expanded={open}
            aria-controls={`${id}-body`}
            onClick={() => updateSettings({ open: !open })}
          >
            {open ? "Hide insights" : "Show insights"}
          </button>
        ) : null}
      </div>
      {open ? (
        <div className="insights-body" id={`${id}-body`}>
          {!valid ? (
            <p className="insights-blocked">
              {nothingYet
                ? "Finish the rules to see insights."
                : "These insights are for your last complete audience. Finish the rules to update them."}
              {blockedBy ? <span className="insights-blocked-reason"> {blockedBy}</span> : null}
            </p>
          ) : null}
          {!valid && nothingYet ? null : (
            <>
              <SummarySection state={summary} />
              <BreakdownSection
                state={breakdown}
                groupField={settings.groupField}
                onGroupFieldChange={(groupField) => updateSettings({ groupField })}
                onAdd={add}
                hintId={`${id}-hint`}
                compact={variant === "panel"}
              />
              <FieldsSection
                state={fields}
                fields={settings.fields}
                onFieldsChange={(next) => updateSettings({ fields: next })}
                total={summary.data?.total ?? null}
                onAdd={add}
                hintId={`${id}-hint`}
              />
            </>
          )}
        </div>
      ) : null}
    </section>
  );
}
