import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { z } from "zod";
import { canonicalFilter, canonicalKey, stableStringify } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { withinIds } from "../../../contract/in-audience";
import { type Plan, REVEALS, type Reveal } from "../../../contract/inferred";
import { type ExportReview, OWNED_CHOICES, type OwnedChoice } from "../../../contract/spending";
import { useCredits } from "../../api/credits";
import { formatCount, formatNumber } from "../../lib/format";
import {
  type CheckedSelection,
  leftSentence,
  selectedPeoplePhrase,
  selectionBlocked,
} from "../../lib/selection-check";
import { isWaiting, usePurchase } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { useStoredValue } from "../../lib/store";
import { readableError } from "../../ui/status";
import { type ExportStartCall, type ExportStarted, startExport } from "./api/export-start";
import { EXPORTS_QUERY_KEY } from "./api/exports";
import { type ExportReviewRequest, useExportReview } from "./api/review";
import { useAudienceLabel } from "./audience-label";
import { ConfirmStep } from "./confirm-step";
import { ExportProgress } from "./export-progress";
import {
  DEFAULT_PICKED_COLUMNS,
  defaultMaxRows,
  deliveredColumns,
  MAX_ROWS_DEFAULT_CAP,
  requestColumns,
} from "./export-settings";
import { OtherAudienceNote } from "./other-audience-note";
import { PolicyNote, policyConfirmLabel, policyProblem } from "./policy";
import { formatAmount, insufficientText, REVEAL_LABELS, revealPhrase } from "./pricing";
import { confirmable, PurchaseFormEnd, PurchaseStatus } from "./purchase-form-parts";
import { activeExport, ofAudience } from "./saved-results";

const formSchema = z.object({
  scope: z.enum(["audience", "selection"]),
  maxRows: z
    .number({ error: "Enter a whole number of rows, at least 1." })
    .int({ error: "Enter a whole number of rows." })
    .min(1, { error: "At least 1 row." }),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
  name: z.string().trim().max(200, { error: "At most 200 characters." }),
  owned: z.enum(OWNED_CHOICES),
});
type ExportForm = z.infer<typeof formSchema>;

export interface ExportPanelProps {
  /** The audience, as sent to the service. */
  filter: GroupNode;
  valid: boolean;
  /** The audience in plain English. */
  description: string;
  count: number | null;
  /** The people ticked in the sample, checked against this audience: only `kept` are exported. */
  selection: CheckedSelection;
  /** The saved audience open, if any: an export not named otherwise is named after it. */
  audienceName?: string | null;
}

/** What an export is called when the buyer names it nothing: the saved audience, else the filter in words. */
export function defaultExportName(audienceName: string | null | undefined, description: string): string {
  if (audienceName) return audienceName.slice(0, 200);
  return description.length > 80 ? `${description.slice(0, 79).trimEnd()}…` : description;
}

function scopeText(scope: ExportForm["scope"], description: string, selection: CheckedSelection): string {
  return scope === "audience"
    ? `the audience: ${description}`
    : selectedPeoplePhrase(selection.kept.length, selection.left.length);
}

/** The owned choice's label, with the number of such contacts once a review said it. */
export function ownedChoiceLabel(choice: OwnedChoice, owned: number | null): string {
  const them =
    owned === null ? "the contacts" : `the ${formatNumber(owned)} ${owned === 1 ? "contact" : "contacts"}`;
  switch (choice) {
    case "leave-out":
      return `Leave out ${them} you already own (default)`;
    case "add-free":
      return "Add them to the file for free";
    case "buy-again":
      return "Buy them again (fresh data)";
  }
}

const OWNED_HINTS: Record<OwnedChoice, string> = {
  "leave-out": "They are not bought and not in the file: you pay only for people new to your team.",
  "add-free": "Only new people are bought; the rows your team already has are added to the file at no cost.",
  "buy-again": "Bought and charged again, with the service's current data.",
};

/** What the purchase does with owned contacts, in a few words (for the confirm step and the notices). */
const OWNED_PHRASES: Record<OwnedChoice, string> = {
  "leave-out": "contacts you already own left out",
  "add-free": "contacts you already own added free",
  "buy-again": "contacts you already own bought again",
};

function EstimateFacts({
  estimate,
  maxRows,
  plan,
}: {
  estimate: ExportReview;
  maxRows: number;
  plan: Plan | null;
}) {
  const kept = estimate.audience - estimate.suppressed;
  return (
    <div className="checkout-estimate" data-testid="estimate">
      <dl className="facts checkout-facts">
        <div className="checkout-fact">
          <dt>In the audience</dt>
          <dd data-testid="estimate-audience">{formatNumber(estimate.audience)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Suppressed (left out)</dt>
          <dd data-testid="estimate-suppressed">{formatNumber(estimate.suppressed)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Already yours</dt>
          <dd data-testid="estimate-owned">{formatNumber(estimate.owned)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>{estimate.owned_choice === "buy-again" ? "Rows to buy" : "New rows to buy"}</dt>
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
        {estimate.owned_choice === "add-free" ? (
          <div className="checkout-fact">
            <dt>Added free</dt>
            <dd data-testid="estimate-free">{formatNumber(estimate.freeRows)}</dd>
          </div>
        ) : null}
        <div className="checkout-fact">
          <dt>Your balance</dt>
          <dd>{formatAmount(estimate.balance, plan)}</dd>
        </div>
        <div className="checkout-fact">
          <dt>Enough?</dt>
          <dd>{estimate.sufficient ? "Yes" : "No"}</dd>
        </div>
      </dl>
      <p className="hint-text checkout-hint" data-testid="estimate-sentence">
        {formatNumber(estimate.audience)} in the audience
        {estimate.suppressed > 0
          ? `, ${formatNumber(estimate.suppressed)} on your do-not-contact lists (never bought, never in the file)`
          : ""}
        {estimate.owned > 0
          ? `, ${formatNumber(estimate.owned)} already yours (${OWNED_PHRASES[estimate.owned_choice].replace("contacts you already own ", "")})`
          : ""}
        : {formatNumber(estimate.rows)} {estimate.rows === 1 ? "row" : "rows"} to buy for{" "}
        {formatAmount(estimate.credits, plan)}
        {estimate.freeRows > 0 ? `, and ${formatNumber(estimate.freeRows)} of yours added free` : ""}.
        {maxRows < kept - (estimate.owned_choice === "buy-again" ? 0 : estimate.owned)
          ? ` The file holds at most ${formatNumber(maxRows)} bought rows: the first by contact id, exactly the rows estimated here.`
          : ""}
      </p>
      {estimate.notes.length > 0 ? (
        <ul className="checkout-notes" data-testid="estimate-notes">
          {estimate.notes.map((note) => (
            <li key={note} className="hint-text checkout-hint">
              {note}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Export: a CSV of the audience (or of exactly the people selected in the sample), up to `maxRows`
 * rows, revealed as chosen. Estimate first (free): rows, emails and mobiles in them, the credits,
 * the balance; then Confirm starts it, the progress follows, and the file downloads when complete.
 */
export function ExportPanel({
  filter,
  valid,
  description,
  count,
  selection,
  audienceName = null,
}: ExportPanelProps) {
  const audienceLabel = useAudienceLabel();
  const credits = useCredits();
  const queryClient = useQueryClient();
  const plan = credits.data?.plan ?? null;
  const followed = useStoredValue(activeExport);
  // Another audience's export is said, not shown as this one's (it is in the history too).
  const [showOther, setShowOther] = useState(false);
  const maxRowsId = useId();
  const maxRowsHintId = useId();
  const nameId = useId();
  const [asked, setAsked] = useState<ExportReviewRequest | null>(null);
  /** The free rows the confirmed estimate promised: the done card counts them apart. */
  const confirmedFreeRows = useRef(0);
  const [knownOwned, setKnownOwned] = useState<{ key: string | null; owned: number } | null>(null);

  const purchase = usePurchase<ExportStarted>({
    kind: "export",
    send: (body, key) => startExport(body as ExportStartCall, key, audienceLabel),
    onSettled: ([started], bought: PendingPurchase) => {
      if (!started) return;
      const body = bought.calls[0]?.body as ExportStartCall;
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
        audienceKey: canonicalKey(filter),
        audience: audienceLabel ?? description,
        freeRows: confirmedFreeRows.current,
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

  const hasSelection = selection.ids.length > 0;
  // The selection is exported only once checked, and only the people still in the audience: the
  // same ones Enrich takes.
  const kept = selection.kept;
  const selectionProblem = selectionBlocked(
    selection,
    "Export the whole audience, or tick people of it in the Builder's sample.",
  );
  const form = useForm<ExportForm>({
    resolver: zodResolver(formSchema),
    defaultValues: {
      scope: "audience",
      maxRows: defaultMaxRows(count) ?? 1,
      reveal: "email",
      columns: [...DEFAULT_PICKED_COLUMNS],
      name: "",
      owned: "leave-out",
    },
  });
  const values = useWatch({ control: form.control });
  const scope = values.scope ?? "audience";

  // The default follows the audience's count (and the scope), until the person types their own.
  const scopeDefault = scope === "selection" ? Math.max(1, kept.length) : defaultMaxRows(count);
  useEffect(() => {
    if (scopeDefault === null) return;
    if (form.getFieldState("maxRows").isDirty) return;
    form.setValue("maxRows", scopeDefault);
  }, [scopeDefault, form]);
  useEffect(() => {
    if (!hasSelection && form.getValues("scope") === "selection") form.setValue("scope", "audience");
  }, [hasSelection, form]);

  const scopeFilter = useMemo(
    () => (scope === "selection" ? withinIds(filter, kept) : canonicalFilter(filter)),
    [scope, filter, kept],
  );
  const owned: OwnedChoice = values.owned ?? "leave-out";
  const current: ExportReviewRequest | null = useMemo(() => {
    const maxRows = values.maxRows;
    if (typeof maxRows !== "number" || !Number.isInteger(maxRows) || maxRows < 1) return null;
    if (scope === "selection" && selectionProblem) return null;
    return {
      kind: "export",
      filter: scopeFilter,
      maxRows,
      reveal: (values.reveal ?? "email") as Reveal,
      columns: requestColumns((values.columns ?? []).filter((c): c is string => typeof c === "string")),
      owned,
    };
  }, [scopeFilter, values.maxRows, values.reveal, values.columns, owned, scope, selectionProblem]);
  // A new owned choice after an estimate is asked at once (a click, not a keystroke).
  useEffect(() => {
    if (!asked || !current || asked.owned === current.owned) return;
    if (stableStringify({ ...current, owned: asked.owned }) === stableStringify(asked)) setAsked(current);
  }, [asked, current]);
  const outdated =
    asked !== null && (current === null || stableStringify(current) !== stableStringify(asked));
  const estimate = useExportReview(asked);

  const submit = form.handleSubmit(() => {
    if (current) setAsked(current);
  });

  const blocking = state.phase === "sending" || isWaiting(state) || state.phase === "approval";
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

  if (followed && !blocking && (ofAudience(followed, canonicalKey(filter)) || showOther))
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
  const audienceSize = scope === "selection" ? kept.length : count;
  const ready = estimate.data && asked && !outdated && !estimate.isPlaceholderData ? estimate.data : null;
  // How many of this audience the team owns does not depend on the owned choice: the last count for
  // the same audience, reveal and columns stays in the choice's label (also when a choice is refused).
  const sameAudience = (request: ExportReviewRequest | null) =>
    request ? stableStringify({ ...request, owned: null }) : null;
  if (
    estimate.data &&
    !estimate.isPlaceholderData &&
    asked &&
    (knownOwned?.key !== sameAudience(asked) || knownOwned.owned !== estimate.data.owned)
  )
    setKnownOwned({ key: sameAudience(asked), owned: estimate.data.owned });
  const shownOwned = knownOwned && knownOwned.key === sameAudience(current) ? knownOwned.owned : null;
  const summary = ready
    ? `${formatCount(ready.rows, "row", "rows")} of ${scopeText(scope, description, selection)}, ${revealPhrase(asked!.reveal)}${ready.owned > 0 ? `, ${OWNED_PHRASES[ready.owned_choice]}` : ""}`
    : "";
  const exportLabel = ready
    ? `Confirm and export ${formatCount(ready.rows, "row", "rows")}${ready.freeRows > 0 ? ` (+ ${formatNumber(ready.freeRows)} free)` : ""}`
    : "";

  return (
    <div className="checkout-panel-body">
      {notice}
      {followed && !blocking ? (
        <OtherAudienceNote
          what="export"
          audience={followed.audience}
          at={followed.startedAt}
          onShow={() => setShowOther(true)}
        />
      ) : null}
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
                      {selection.state === "checked" && selection.left.length > 0
                        ? `Only the ${formatNumber(kept.length)} selected still in this audience`
                        : `Only the ${formatNumber(selection.ids.length)} selected`}
                    </span>
                    <span className="hint-text checkout-choice-hint">
                      {selection.state !== "checked"
                        ? selection.problem
                        : (leftSentence(selection.ids.length, selection.left.length) ??
                          "Exactly the rows you ticked in the sample")}
                    </span>
                  </span>
                </label>
              </div>
              {scope === "selection" && selectionProblem && selection.state === "checked" ? (
                <p className="checkout-problem" role="alert">
                  {selectionProblem}
                </p>
              ) : null}
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
                File name <span className="hint-text checkout-hint">(blank: the audience's name)</span>
              </label>
              <input
                id={nameId}
                className="input"
                type="text"
                maxLength={200}
                autoComplete="off"
                placeholder={defaultExportName(audienceName, description)}
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

          <fieldset className="checkout-fieldset checkout-owned-choices">
            <legend className="field-label">Contacts your team already owns</legend>
            <div className="checkout-choices">
              {OWNED_CHOICES.map((choice) => (
                <label key={choice} className="checkout-choice">
                  <input type="radio" value={choice} {...form.register("owned")} />
                  <span className="checkout-choice-text">
                    <span className="checkout-choice-label">{ownedChoiceLabel(choice, shownOwned)}</span>
                    <span className="hint-text checkout-choice-hint">{OWNED_HINTS[choice]}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>

          <PurchaseFormEnd
            form={form}
            plan={plan}
            submitLabel={
              estimate.isFetching ? "Estimating…" : asked && !outdated ? "Estimate again" : "Estimate"
            }
            submitDisabled={
              !valid || estimate.isFetching || (scope === "selection" && selectionProblem !== null)
            }
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
      {ready && asked && confirmable(state.phase, blocking) ? (
        <>
          <EstimateFacts estimate={ready} maxRows={asked.maxRows} plan={plan} />
          <ConfirmStep
            key={stableStringify(asked)}
            title="Confirm the export"
            facts={[
              {
                label: scope === "selection" ? "People" : "Audience",
                value: scope === "selection" ? scopeText(scope, description, selection) : description,
              },
              { label: "Rows", value: formatNumber(ready.rows) },
              {
                label: "Already yours",
                value:
                  ready.owned === 0
                    ? "None in it"
                    : `${formatNumber(ready.owned)}, ${OWNED_PHRASES[ready.owned_choice].replace("contacts you already own ", "")}`,
              },
              { label: "Reveal", value: REVEAL_LABELS[asked.reveal] },
              {
                label: "Columns",
                value: formatNumber(deliveredColumns(asked.columns ?? null, asked.reveal).length),
              },
            ]}
            exact
            credits={ready.credits}
            plan={plan}
            balance={ready.balance}
            problem={
              policyProblem(ready.policy) ??
              (ready.rows === 0
                ? ready.audience === 0
                  ? "No one to export: the audience (or your selection within it) is empty."
                  : "Nothing new to buy: everyone in it is already yours or on a do-not-contact list. Choose “Buy them again” for fresh data."
                : ready.sufficient
                  ? null
                  : `${insufficientText(ready.credits, ready.balance, plan)} Export fewer rows, or reveal less.`)
            }
            confirmLabel={policyConfirmLabel(ready.policy, ready.credits, plan, exportLabel)}
            busy={purchase.busy}
            pending={estimate.isFetching}
            onConfirm={() => {
              const name = form.getValues("name").trim() || defaultExportName(audienceName, description);
              const { kind: _, owned: ownedContacts, ...rest } = asked;
              const body: ExportStartCall = {
                ...rest,
                ...(name ? { name } : {}),
                ownedContacts: ownedContacts ?? "leave-out",
              };
              confirmedFreeRows.current = ready.freeRows;
              purchase.confirm([body], summary);
            }}
            onBack={() => setAsked(null)}
          >
            <p className="hint-text checkout-hint">
              Charged once, when the file is complete: exactly this amount. A failed or cancelled export costs
              nothing.
            </p>
            <PolicyNote policy={ready.policy} />
          </ConfirmStep>
        </>
      ) : null}
    </div>
  );
}
