import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { z } from "zod";
import { canonicalFilter, stableStringify } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { REVEALS, type Reveal } from "../../../contract/inferred";
import { useCredits } from "../../api/credits";
import { formatNumber } from "../../lib/format";
import { isWaiting, usePurchase } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { useStoredValue } from "../../lib/store";
import { readableError } from "../../ui/status";
import { type Estimate, type EstimateBody, useEstimate } from "./api/estimate";
import { type ExportStartBody, type ExportStarted, startExport } from "./api/export-start";
import { EXPORTS_QUERY_KEY } from "./api/exports";
import { ConfirmStep } from "./confirm-step";
import { ExportProgress } from "./export-progress";
import {
  DEFAULT_PICKED_COLUMNS,
  defaultMaxRows,
  deliveredColumns,
  MAX_ROWS_DEFAULT_CAP,
  requestColumns,
} from "./export-settings";
import { formatAmount, insufficientText, REVEAL_LABELS, revealPhrase } from "./pricing";
import { PurchaseFormEnd, PurchaseStatus } from "./purchase-form-parts";
import { activeExport } from "./saved-results";
import { selectionFilter } from "./scope";

const formSchema = z.object({
  scope: z.enum(["audience", "selection"]),
  maxRows: z
    .number({ error: "Enter a whole number of rows, at least 1." })
    .int({ error: "Enter a whole number of rows." })
    .min(1, { error: "At least 1 row." }),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
  name: z.string().trim().max(200, { error: "At most 200 characters." }),
});
type ExportForm = z.infer<typeof formSchema>;

export interface ExportPanelProps {
  /** The audience, as sent to the service. */
  filter: GroupNode;
  valid: boolean;
  /** The audience in plain English. */
  description: string;
  count: number | null;
  /** The RBID_PAO ids ticked in the sample. */
  selection: readonly string[];
}

function scopeText(scope: ExportForm["scope"], description: string, selected: number): string {
  return scope === "selection"
    ? `the ${formatNumber(selected)} ${selected === 1 ? "person" : "people"} selected in the sample (who are still in the audience)`
    : `the audience: ${description}`;
}

function EstimateFacts({ estimate, maxRows }: { estimate: Estimate; maxRows: number }) {
  const plan = estimate.plan;
  return (
    <div className="checkout-estimate" data-testid="estimate">
      <dl className="facts checkout-facts">
        <div className="checkout-fact">
          <dt>Rows in the file</dt>
          <dd data-testid="estimate-rows">{formatNumber(estimate.rows)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>With an email</dt>
          <dd>{formatNumber(estimate.withEmail)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>With a mobile</dt>
          <dd>{formatNumber(estimate.withMobile)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Credits</dt>
          <dd data-testid="estimate-credits">{formatAmount(estimate.credits, plan)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Your balance</dt>
          <dd>{formatAmount(estimate.balance, plan)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Enough?</dt>
          <dd>{estimate.sufficient ? "Yes" : "No"}</dd>
        </div>
      </dl>
      {maxRows < estimate.audienceCount ? (
        <p className="hint-text checkout-hint">
          The audience has {formatNumber(estimate.audienceCount)} people; the file holds the first{" "}
          {formatNumber(estimate.rows)} by contact id, exactly the rows estimated here.
        </p>
      ) : null}
    </div>
  );
}

/**
 * Export: a CSV of the audience (or of exactly the people selected in the sample), up to `maxRows`
 * rows, revealed as chosen. Estimate first (free): rows, emails and mobiles in them, the credits,
 * the balance; then Confirm starts it, the progress follows, and the file downloads when complete.
 */
export function ExportPanel({ filter, valid, description, count, selection }: ExportPanelProps) {
  const credits = useCredits();
  const queryClient = useQueryClient();
  const plan = credits.data?.plan ?? null;
  const followed = useStoredValue(activeExport);
  const maxRowsId = useId();
  const maxRowsHintId = useId();
  const nameId = useId();
  const [asked, setAsked] = useState<EstimateBody | null>(null);

  const purchase = usePurchase<ExportStarted>({
    kind: "export",
    send: (body, key) => startExport(body as ExportStartBody, key),
    onSettled: ([started], bought: PendingPurchase) => {
      if (!started) return;
      const body = bought.calls[0]?.body as ExportStartBody;
      activeExport.set({
        v: 1,
        exportId: started.exportId,
        name: body.name ?? null,
        rows: started.rows,
        credits: started.credits,
        summary: bought.summary,
        columns: deliveredColumns(body.columns ?? null, body.reveal),
        startedAt: new Date().toISOString(),
        downloaded: false,
        lastStatus: "QUEUED",
      });
      void queryClient.invalidateQueries({ queryKey: EXPORTS_QUERY_KEY });
    },
  });
  const { state, reset } = purchase;
  useEffect(() => {
    if (state.phase === "done") {
      setAsked(null);
      reset();
    }
  }, [state.phase, reset]);

  const hasSelection = selection.length > 0;
  const form = useForm<ExportForm>({
    resolver: zodResolver(formSchema),
    defaultValues: {
      scope: "audience",
      maxRows: defaultMaxRows(count) ?? 1,
      reveal: "email",
      columns: [...DEFAULT_PICKED_COLUMNS],
      name: "",
    },
  });
  const values = useWatch({ control: form.control });
  const scope = values.scope ?? "audience";

  // The default follows the audience's count (and the scope), until the person types their own.
  const scopeDefault = scope === "selection" ? Math.max(1, selection.length) : defaultMaxRows(count);
  useEffect(() => {
    if (scopeDefault === null) return;
    if (form.getFieldState("maxRows").isDirty) return;
    form.setValue("maxRows", scopeDefault);
  }, [scopeDefault, form]);
  useEffect(() => {
    if (!hasSelection && form.getValues("scope") === "selection") form.setValue("scope", "audience");
  }, [hasSelection, form]);

  const scopeFilter = useMemo(
    () => (scope === "selection" ? selectionFilter(filter, selection) : canonicalFilter(filter)),
    [scope, filter, selection],
  );
  const current: EstimateBody | null = useMemo(() => {
    const maxRows = values.maxRows;
    if (typeof maxRows !== "number" || !Number.isInteger(maxRows) || maxRows < 1) return null;
    return {
      filter: scopeFilter,
      maxRows,
      reveal: (values.reveal ?? "email") as Reveal,
      columns: requestColumns((values.columns ?? []).filter((c): c is string => typeof c === "string")),
    };
  }, [scopeFilter, values.maxRows, values.reveal, values.columns]);
  const outdated =
    asked !== null && (current === null || stableStringify(current) !== stableStringify(asked));
  const estimate = useEstimate(asked);

  const submit = form.handleSubmit(() => {
    if (current) setAsked(current);
  });

  const blocking = state.phase === "sending" || isWaiting(state);
  const notice = (
    <PurchaseStatus
      purchase={purchase}
      plan={plan}
      words={{
        what: "the export",
        check: "the balance on the Account page and the export history below",
        againLabel: "Export it again…",
      }}
      changeLabel="Dismiss and estimate again"
      onChange={() => setAsked(null)}
    />
  );

  if (followed && !blocking)
    return (
      <div className="checkout-panel-body">
        {notice}
        <ExportProgress
          key={followed.exportId}
          record={followed}
          plan={plan}
          onNewExport={() => activeExport.set(null)}
        />
      </div>
    );

  const maxRowsError = form.formState.errors.maxRows?.message;
  const nameError = form.formState.errors.name?.message;
  const typedRows =
    typeof values.maxRows === "number" && Number.isFinite(values.maxRows) ? values.maxRows : null;
  const audienceSize = scope === "selection" ? selection.length : count;
  const ready = estimate.data && asked && !outdated ? estimate.data : null;
  const summary = ready
    ? `${formatNumber(ready.rows)} rows of ${scopeText(scope, description, selection.length)}, ${revealPhrase(asked!.reveal)}`
    : "";

  return (
    <div className="checkout-panel-body">
      {notice}
      {!blocking ? (
        <form className="form checkout-form" onSubmit={submit} noValidate>
          {!valid ? (
            <p className="checkout-problem">Finish the audience in the Builder before exporting it.</p>
          ) : null}
          {hasSelection ? (
            <fieldset className="checkout-fieldset">
              <legend className="field-label">Rows from</legend>
              <div className="checkout-choices">
                <label className="checkout-choice">
                  <input type="radio" value="audience" {...form.register("scope")} />
                  <span className="checkout-choice-text">
                    <span className="checkout-choice-label">The whole audience</span>
                    <span className="hint-text checkout-choice-hint">
                      {count === null ? "Counting…" : `${formatNumber(count)} people`}
                    </span>
                  </span>
                </label>
                <label className="checkout-choice">
                  <input type="radio" value="selection" {...form.register("scope")} />
                  <span className="checkout-choice-text">
                    <span className="checkout-choice-label">
                      Only the {formatNumber(selection.length)} selected
                    </span>
                    <span className="hint-text checkout-choice-hint">
                      Exactly the rows you ticked in the sample
                    </span>
                  </span>
                </label>
              </div>
            </fieldset>
          ) : null}

          <div className="checkout-row">
            <div className="field checkout-narrow-field">
              <label className="field-label" htmlFor={maxRowsId}>
                Most rows
              </label>
              <input
                id={maxRowsId}
                className="input"
                type="number"
                inputMode="numeric"
                min={1}
                step={1}
                aria-describedby={maxRowsHintId}
                aria-invalid={maxRowsError ? true : undefined}
                {...form.register("maxRows", { valueAsNumber: true })}
              />
            </div>
            <div className="field checkout-grow-field">
              <label className="field-label" htmlFor={nameId}>
                File name <span className="hint-text checkout-hint">(optional)</span>
              </label>
              <input
                id={nameId}
                className="input"
                type="text"
                maxLength={200}
                autoComplete="off"
                placeholder="e.g. EMEA marketing directors"
                aria-invalid={nameError ? true : undefined}
                {...form.register("name")}
              />
            </div>
          </div>
          <p className="hint-text checkout-hint" id={maxRowsHintId}>
            {scope === "selection"
              ? "At most the people you selected."
              : `Defaults to the audience's size, up to ${formatNumber(MAX_ROWS_DEFAULT_CAP)} (a file that size opens in any spreadsheet); type more if you need them.`}
            {typedRows !== null && audienceSize !== null && typedRows < audienceSize
              ? ` With ${formatNumber(typedRows)} of ${formatNumber(audienceSize)}, the first ${formatNumber(typedRows)} by contact id are delivered.`
              : ""}
          </p>
          {maxRowsError ? (
            <p className="checkout-problem" role="alert">
              {maxRowsError}
            </p>
          ) : null}
          {nameError ? (
            <p className="checkout-problem" role="alert">
              {nameError}
            </p>
          ) : null}

          <PurchaseFormEnd
            form={form}
            plan={plan}
            submitLabel={
              estimate.isFetching ? "Estimating…" : asked && !outdated ? "Estimate again" : "Estimate"
            }
            submitDisabled={!valid || estimate.isFetching}
            hint="Estimating is free. Nothing is charged until you confirm."
          />
        </form>
      ) : null}

      {asked && outdated && !blocking ? (
        <p className="notice-info checkout-notice" role="status">
          The settings changed since the estimate: estimate again to see the new price.
        </p>
      ) : null}
      {asked && !outdated && estimate.error ? (
        <div className="alert checkout-alert" role="alert">
          <h3 className="alert-title">The estimate could not be made</h3>
          <p>{readableError(estimate.error)}</p>
          <div className="alert-actions">
            <button type="button" className="button button-secondary" onClick={() => void estimate.refetch()}>
              Try again
            </button>
          </div>
        </div>
      ) : null}
      {ready && asked && !blocking && state.phase !== "failed" ? (
        <>
          <EstimateFacts estimate={ready} maxRows={asked.maxRows} />
          <ConfirmStep
            key={stableStringify(asked)}
            title="Confirm the export"
            facts={[
              {
                label: scope === "selection" ? "People" : "Audience",
                value: scope === "selection" ? scopeText(scope, description, selection.length) : description,
              },
              { label: "Rows", value: formatNumber(ready.rows) },
              { label: "Reveal", value: REVEAL_LABELS[asked.reveal] },
              {
                label: "Columns",
                value: formatNumber(deliveredColumns(asked.columns ?? null, asked.reveal).length),
              },
            ]}
            exact
            credits={ready.credits}
            plan={ready.plan}
            balance={ready.balance}
            problem={
              ready.rows === 0
                ? "No one to export: the audience (or your selection within it) is empty."
                : ready.sufficient
                  ? null
                  : `${insufficientText(ready.credits, ready.balance, ready.plan)} Export fewer rows, or reveal less.`
            }
            confirmLabel={`Confirm and export ${formatNumber(ready.rows)} rows`}
            busy={purchase.busy}
            onConfirm={() => {
              const name = form.getValues("name").trim();
              const body: ExportStartBody = { ...asked, ...(name ? { name } : {}) };
              purchase.confirm([body], summary);
            }}
            onBack={() => setAsked(null)}
          >
            <p className="hint-text checkout-hint">
              Charged once, when the file is complete: exactly this amount. A failed or cancelled export costs
              nothing.
            </p>
          </ConfirmStep>
        </>
      ) : null}
    </div>
  );
}
