import { zodResolver } from "@hookform/resolvers/zod";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { canonicalFilter, canonicalKey } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { type Plan, PREVIEW_LIMIT, REVEALS, type Reveal } from "../../../contract/inferred";
import { maxContactCost } from "../../../contract/pricing";
import { useCredits } from "../../api/credits";
import { formatNumber } from "../../lib/format";
import { isWaiting } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { type PreviewBody, type PreviewResult, postPreview } from "./api/preview";
import { useAudienceLabel } from "./audience-label";
import { ConfirmStep } from "./confirm-step";
import { DEFAULT_PICKED_COLUMNS, requestColumns } from "./export-settings";
import { OtherAudienceNote } from "./other-audience-note";
import { REVEAL_LABELS, revealPhrase } from "./pricing";
import { confirmable, PurchaseFormEnd, RowsPurchaseStatus } from "./purchase-form-parts";
import { RowsResultView } from "./rows-result";
import { lastPreview, type RowsResult } from "./saved-results";
import { useRowsPurchase } from "./use-rows-purchase";

const formSchema = z.object({
  limit: z
    .number({ error: `Enter a whole number from ${PREVIEW_LIMIT.min} to ${PREVIEW_LIMIT.max}.` })
    .int({ error: "Enter a whole number." })
    .min(PREVIEW_LIMIT.min, { error: `At least ${PREVIEW_LIMIT.min}.` })
    .max(PREVIEW_LIMIT.max, { error: `At most ${PREVIEW_LIMIT.max}: export a file for more.` }),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
});
type PreviewForm = z.infer<typeof formSchema>;

interface Review {
  body: PreviewBody;
  summary: string;
  rows: number;
  reveal: Reveal;
}

function toRowsResult(results: PreviewResult[], purchase: PendingPurchase): RowsResult {
  const answer = results[0]!;
  const body = purchase.calls[0]?.body as PreviewBody | undefined;
  return {
    v: 1,
    at: new Date().toISOString(),
    summary: purchase.summary,
    reveal: body?.reveal ?? "none",
    columns: answer.columns,
    rows: answer.rows,
    notFound: [],
    creditsCharged: answer.creditsCharged,
    creditsRemaining: answer.creditsRemaining,
    unsent: 0,
  };
}

export interface PreviewPanelProps {
  /** The audience, as sent to the service. */
  filter: GroupNode;
  /** False while the audience has unfinished rules: nothing can be bought from it. */
  valid: boolean;
  /** The audience in plain English. */
  description: string;
  /** The audience's size, when known. */
  count: number | null;
}

/**
 * Preview: the first rows of the audience (at most 100), full and revealed as chosen, shown at once.
 * Charged on PAYG like any delivered row, so it has the same confirm step as every purchase.
 */
export function PreviewPanel({ filter, valid, description, count }: PreviewPanelProps) {
  const audienceLabel = useAudienceLabel();
  const credits = useCredits();
  const plan: Plan | null = credits.data?.plan ?? null;
  const limitId = useId();
  const limitHintId = useId();
  const audienceKey = canonicalKey(filter);
  const { purchase, review, setReview, result, other } = useRowsPurchase<PreviewResult, Review>({
    kind: "preview",
    send: (body, key) => postPreview(body as PreviewBody, key, audienceLabel),
    store: lastPreview,
    toResult: toRowsResult,
    audience: { key: audienceKey, words: audienceLabel ?? description },
  });
  const [showOther, setShowOther] = useState(false);
  const shown = result ?? (showOther ? other : null);
  const { state } = purchase;

  const form = useForm<PreviewForm>({
    resolver: zodResolver(formSchema),
    defaultValues: { limit: PREVIEW_LIMIT.default, reveal: "email", columns: [...DEFAULT_PICKED_COLUMNS] },
  });

  const submit = form.handleSubmit((values) => {
    const rows = count === null ? values.limit : Math.min(values.limit, count);
    setReview({
      body: {
        filter: canonicalFilter(filter),
        limit: values.limit,
        reveal: values.reveal,
        columns: requestColumns(values.columns),
      },
      summary: `the first ${formatNumber(rows)} ${rows === 1 ? "person" : "people"} of the audience, ${revealPhrase(values.reveal)}`,
      rows,
      reveal: values.reveal,
    });
  });

  const blocking = state.phase === "sending" || isWaiting(state) || state.phase === "approval";
  const balance = credits.data?.credits ?? null;
  const maxCost = review && plan ? maxContactCost(review.rows, review.reveal, plan) : 0;
  const limitError = form.formState.errors.limit?.message;

  return (
    <div className="checkout-panel-body">
      <RowsPurchaseStatus
        purchase={purchase}
        plan={plan}
        what="the preview"
        againLabel="Preview them again…"
        changeLabel="Change the preview"
        onChange={() => setReview(null)}
      />

      {review && confirmable(state.phase, blocking) ? (
        <ConfirmStep
          title="Confirm the preview"
          facts={[
            { label: "Audience", value: description },
            { label: "Rows", value: `The first ${formatNumber(review.rows)} by contact id` },
            { label: "Reveal", value: REVEAL_LABELS[review.reveal] },
          ]}
          exact={false}
          credits={maxCost}
          plan={plan}
          balance={balance}
          problem={
            plan === "PAYG" && balance !== null && maxCost > balance
              ? "Your balance may not cover this preview: ask for fewer rows or reveal less."
              : null
          }
          confirmLabel={`Confirm and preview ${formatNumber(review.rows)}`}
          busy={purchase.busy}
          onConfirm={() => purchase.confirm([review.body], review.summary)}
          onBack={() => setReview(null)}
        />
      ) : null}

      {!review && !blocking ? (
        <form className="form checkout-form" onSubmit={submit} noValidate>
          {!valid ? (
            <p className="checkout-problem">Finish the audience in the Builder to preview its rows.</p>
          ) : null}
          <div className="field checkout-narrow-field">
            <label className="field-label" htmlFor={limitId}>
              Rows
            </label>
            <input
              id={limitId}
              className="input"
              type="number"
              inputMode="numeric"
              min={PREVIEW_LIMIT.min}
              max={PREVIEW_LIMIT.max}
              step={1}
              aria-describedby={limitHintId}
              aria-invalid={limitError ? true : undefined}
              {...form.register("limit", { valueAsNumber: true })}
            />
            <p className="hint-text checkout-hint" id={limitHintId}>
              {PREVIEW_LIMIT.min} to {PREVIEW_LIMIT.max}: the audience's first people by contact id.
            </p>
            {limitError ? (
              <p className="checkout-problem" role="alert">
                {limitError}
              </p>
            ) : null}
          </div>
          <PurchaseFormEnd
            form={form}
            plan={plan}
            submitLabel="Review the preview"
            submitDisabled={!valid}
            hint="Nothing is charged until you confirm on the next step."
          />
        </form>
      ) : null}

      {other && !showOther ? (
        <OtherAudienceNote
          what="preview"
          audience={other.audience}
          at={other.at}
          onShow={() => setShowOther(true)}
        />
      ) : null}
      {shown ? (
        <RowsResultView
          result={shown}
          plan={plan}
          title="Preview rows"
          filePrefix="preview"
          onClear={() => lastPreview.set(null)}
        />
      ) : null}
    </div>
  );
}
