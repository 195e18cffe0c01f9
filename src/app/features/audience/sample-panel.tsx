import { type ReactNode, useId, useMemo, useState } from "react";
import { Link } from "wouter";
import { ApiError } from "../../api/api-error";
import { formatNumber, formatTime } from "../../lib/format";
import {
  clearSelection,
  removeFromSelection,
  SELECTION_CAP,
  type SelectionAudience,
  type SelectionSnapshot,
  selectionAudienceOf,
  useSelection,
} from "../../lib/selection";
import { type CheckedSelection, leftSentence, useSettledCheckedSelection } from "../../lib/selection-check";
import { Spinner } from "../../ui/spinner";
import { readableError } from "../../ui/status";
import { BudgetMeter } from "./budget-meter";
import { CapNotice } from "./cap-notice";
import { ColumnChooser } from "./column-chooser";
import type { AudienceProps } from "./count-badge";
import { SAMPLE_SIZES, type SampleSize, sameSettings, useSampleSettings } from "./sample-settings";
import { SampleTable } from "./sample-table";
import { type SettledSample, useSettledSample } from "./view";
import "./sample-panel.css";

export interface SamplePanelProps extends AudienceProps {
  /** How long the audience must stay unchanged before a new sample (default 1.5 s). */
  settleMs?: number;
  /** Whose ticks these are (lib/selection.ts); by default the unsaved tree `filter`. */
  audience?: SelectionAudience;
}

/** A calm placeholder in the table's shape while the first sample loads. */
function SampleSkeleton({ rows }: { rows: number }) {
  return (
    <div className="sample-skeleton">
      <p className="visually-hidden">Taking a sample…</p>
      <div aria-hidden="true">
        {Array.from({ length: Math.min(rows, 6) }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have no identity.
          <div key={i} className="sample-skeleton-row">
            <span />
            <span />
            <span />
            <span />
          </div>
        ))}
      </div>
    </div>
  );
}

function SelectionBar({
  audience,
  selection,
  checked,
  onPage,
}: {
  audience: SelectionAudience;
  selection: SelectionSnapshot;
  /** The ticks checked against this audience (null while it settles). */
  checked: CheckedSelection | null;
  onPage: readonly string[];
}) {
  const count = selection.ids.length;
  const here = onPage.filter((id) => selection.has.has(id)).length;
  // Ticks outlive edits of the audience: say how many are no longer in it.
  const left = checked?.state === "checked" ? checked.left : [];
  const leftWords = leftSentence(count, left.length);
  return (
    <div className="sample-selection" role="status" aria-live="polite">
      <span className="sample-selection-text">
        {count === 0
          ? "No contacts selected. Tick rows to keep them for checkout."
          : `${formatNumber(count)} ${count === 1 ? "contact" : "contacts"} selected${here > 0 ? ` (${formatNumber(here)} in this sample)` : ""}.`}
      </span>
      {count > 0 ? (
        <button type="button" className="button button-quiet" onClick={() => clearSelection(audience)}>
          Clear selection
        </button>
      ) : null}
      {count > left.length ? (
        <Link href="/checkout?tab=enrich" className="button button-secondary">
          {left.length > 0
            ? `Buy the ${formatNumber(count - left.length)} still in it`
            : `Buy the ${formatNumber(count)} selected`}
        </Link>
      ) : null}
      {leftWords ? (
        <span className="notice-warning sample-selection-left" data-testid="selection-left">
          {leftWords} Checkout marks them and leaves them out of every purchase.{" "}
          <button
            type="button"
            className="button button-quiet"
            onClick={() => removeFromSelection(audience, left)}
          >
            Untick {left.length === 1 ? "them" : `the ${formatNumber(left.length)}`}
          </button>
        </span>
      ) : null}
      {selection.refused > 0 ? (
        <span className="notice-warning sample-selection-cap">
          A selection holds at most {formatNumber(SELECTION_CAP)} contacts: {formatNumber(selection.refused)}{" "}
          {selection.refused === 1 ? "was" : "were"} not added. Remove some first, or export the whole
          audience instead.
        </span>
      ) : null}
    </div>
  );
}

/** One line on what the panel shows right now. */
function statusLine(sample: SettledSample, valid: boolean, blockedBy: string | undefined): string {
  if (sample.isFetching) return "Taking a new sample…";
  if (!valid)
    return sample.data
      ? `Showing the sample of your last complete audience. ${blockedBy ?? "Finish the filter for a new one."}`
      : "";
  if (sample.isSettling && sample.data)
    return "The audience changed: a new sample is taken when you pause editing.";
  if (sample.data) {
    const { rowCount } = sample.data.body;
    if (rowCount === 0) return `Sampled at ${formatTime(new Date(sample.data.sampledAt))}: no one matched.`;
    return `A random sample of ${formatNumber(rowCount)} ${rowCount === 1 ? "person" : "people"}, taken at ${formatTime(new Date(sample.data.sampledAt))}.`;
  }
  return "";
}

/**
 * The masked sample of the audience: a table of up to 100 random people (emails and mobiles only
 * as "has one or not"), taken when the audience settles; its settings (size, columns, scores);
 * row selection for checkout; the day's free budget, its cap with a countdown; "Sample again".
 */
export function SamplePanel({ filter, valid, blockedBy, settleMs, audience: given }: SamplePanelProps) {
  const titleId = useId();
  const hintId = useId();
  const sizeId = useId();
  const scoresId = useId();
  const [settings, setSettings] = useSampleSettings();
  const sample = useSettledSample(
    filter,
    valid,
    settleMs === undefined ? { settings } : { settings, settleMs },
  );
  const [fallback] = useState(() => selectionAudienceOf(null, filter));
  const audience = given ?? fallback;
  const selection = useSelection(audience);
  const checked = useSettledCheckedSelection(filter, valid, selection);
  const left = useMemo(() => new Set(checked?.state === "checked" ? checked.left : []), [checked]);

  const data = sample.data;
  const exhausted = sample.error instanceof ApiError && sample.error.kind === "budget-exhausted";
  const settingsPending = data !== undefined && !sameSettings(settings, data.args);
  const canSample = valid && !sample.capped;
  const takeSample = () => {
    if (canSample && !sample.isFetching) sample.sampleAgain(settings);
  };
  const onPage = data ? data.body.rows.map((row) => String(row.RBID_PAO ?? "")) : [];
  const status = statusLine(sample, valid, blockedBy);

  let body: ReactNode;
  if (sample.capped || exhausted) {
    body = (
      <CapNotice
        resetAt={sample.resetAt}
        dailyRows={sample.budget?.total}
        onSample={valid ? takeSample : undefined}
      />
    );
  } else if (sample.error && !sample.isFetching) {
    body = (
      <div className="alert" role="alert">
        <h3 className="alert-title">The sample could not be taken</h3>
        <p>{readableError(sample.error)}</p>
        <div className="alert-actions">
          <button type="button" className="button button-secondary" onClick={takeSample} disabled={!valid}>
            Try again (spends up to {settings.limit} sample rows)
          </button>
        </div>
      </div>
    );
  } else if (!data && !valid) {
    body = (
      <p className="sample-note">
        The sample appears once the audience is complete. {blockedBy ?? "Finish the filter first."}
      </p>
    );
  } else if (!data) {
    body = <SampleSkeleton rows={settings.limit} />;
  } else if (data.body.rows.length === 0) {
    body = (
      <div className="sample-empty">
        <h3 className="sample-empty-title">No one matches this audience yet</h3>
        <p>Loosen a rule, widen a match level or remove a condition; a new sample is taken when you pause.</p>
      </div>
    );
  } else {
    body = (
      <SampleTable
        body={data.body}
        audience={audience}
        selection={selection}
        left={left}
        caption={`Sample of ${formatNumber(data.body.rowCount)} people, masked`}
        dimmed={sample.isFetching || sample.isOutdated}
        showId={settings.columns.includes("RBID_PAO")}
      />
    );
  }

  return (
    <section className="card sample-panel" aria-labelledby={titleId} aria-busy={sample.isFetching}>
      <header className="sample-panel-header">
        <div className="sample-panel-intro">
          <h2 className="card-title" id={titleId}>
            Sample
          </h2>
          <p className="sample-panel-lead">
            A free random sample of this audience, masked: emails and mobiles only show whether one exists. A
            new one is taken each time you stop editing for a moment.
          </p>
        </div>
        <BudgetMeter budget={sample.budget} />
      </header>

      <fieldset className="sample-toolbar">
        <legend className="visually-hidden">Sample settings</legend>
        <div className="sample-field">
          <label htmlFor={sizeId} className="field-label">
            Sample size
          </label>
          <select
            id={sizeId}
            className="input sample-size"
            value={settings.limit}
            onChange={(event) =>
              setSettings({ ...settings, limit: Number(event.target.value) as SampleSize })
            }
          >
            {SAMPLE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size} people
              </option>
            ))}
          </select>
        </div>
        <ColumnChooser
          columns={settings.columns}
          onChange={(columns) => setSettings({ ...settings, columns })}
        />
        <label className="sample-scores" htmlFor={scoresId}>
          <input
            id={scoresId}
            type="checkbox"
            className="sample-checkbox"
            checked={settings.includeScores}
            onChange={(event) => setSettings({ ...settings, includeScores: event.target.checked })}
          />
          Similarity scores
          <span className="hint-text sample-hint">(for meaning and lookalike rules)</span>
        </label>
        <div className="sample-again">
          <button
            type="button"
            className="button button-primary"
            onClick={takeSample}
            disabled={!canSample}
            aria-busy={sample.isFetching}
            aria-describedby={hintId}
          >
            {sample.isFetching ? <Spinner /> : null}
            Sample again
          </button>
          <p className="hint-text sample-hint" id={hintId}>
            {sample.capped
              ? "No new samples until today's free budget resets."
              : `Draws a different random ${settings.limit} people, not a next page. Spends up to ${settings.limit} rows of today's free sample budget.`}
          </p>
        </div>
      </fieldset>

      {settingsPending ? (
        <div className="notice-info sample-pending" role="status">
          <span>
            Your new size, columns or scores are used by the next sample: press Apply now, or they apply by
            themselves the next time you change the audience.
          </span>
          <button
            type="button"
            className="button button-secondary"
            onClick={takeSample}
            disabled={!canSample}
          >
            Apply now (spends up to {settings.limit} rows)
          </button>
        </div>
      ) : null}

      <p className="sample-status" role="status" aria-live="polite">
        {sample.isFetching ? <Spinner /> : null}
        {status}
      </p>

      {(data && data.body.rows.length > 0) || selection.ids.length > 0 ? (
        <SelectionBar audience={audience} selection={selection} checked={checked} onPage={onPage} />
      ) : null}

      <div className="sample-body">{body}</div>
    </section>
  );
}
