import { zodResolver } from "@hookform/resolvers/zod";
import { type ChangeEvent, useEffect, useId, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { useCredits } from "../../api/credits";
import { formatCount, formatCredits, formatNumber } from "../../lib/format";
import { useAbilities } from "../../lib/roles";
import { isWaiting } from "../../lib/spend";
import { readableError } from "../../ui/status";
import {
  type AddressList,
  BATCH_MAX,
  type ListFileResult,
  parseAddressList,
  parseListFile,
  pastedListName,
  UPLOAD_MAX_BYTES,
} from "./address-list";
import { jobLabel } from "./job-model";
import { type BatchSource, type BatchSpend, type StartedJob, useStartBatchSpend } from "./start-batch";
import "./verify.css";
import { ApprovalNotice } from "../../ui/approval-notice";
import { NotKeptNote } from "../../ui/not-kept-note";
import { SpendNotice } from "../../ui/spend-notice";

/** Text moved here from the single-address box; `nonce` makes a repeat of the same text count. */
export interface BatchDraft {
  text: string;
  nonce: number;
}

type Mode = "paste" | "file";

const pasteSchema = z.object({
  list: z.string().superRefine((value, ctx) => {
    const list = parseAddressList(value);
    if (list.addresses.length === 0)
      ctx.addIssue({
        code: "custom",
        message:
          list.entries === 0
            ? "Paste at least one email address."
            : "None of these entries is an email address.",
      });
    else if (list.addresses.length > BATCH_MAX)
      ctx.addIssue({
        code: "custom",
        message: `That is ${formatNumber(list.addresses.length)} addresses; one job takes at most ${formatNumber(BATCH_MAX)}. Split the list.`,
      });
  }),
});
type PasteValues = z.infer<typeof pasteSchema>;

interface Review {
  source: BatchSource;
  /** Addresses the job will check (and at most the credits it costs). */
  addresses: number;
  from: string;
  notes: string[];
}

type FileState =
  | { state: "none" }
  | { state: "reading"; name: string }
  | { state: "read"; file: File; text: string; result: ListFileResult };

/** The first few bad entries, then how many more. */
function invalidLine(invalid: readonly string[]): string {
  const shown = invalid
    .slice(0, 8)
    .map((entry) => `“${entry.length > 40 ? `${entry.slice(0, 40)}…` : entry}”`);
  const more =
    invalid.length > shown.length ? ` and ${formatNumber(invalid.length - shown.length)} more` : "";
  return `${shown.join(", ")}${more}`;
}

function ListSummary({ list, id, sentAsIs }: { list: AddressList; id: string; sentAsIs: boolean }) {
  if (list.entries === 0) return null;
  return (
    <div className="verify-list-summary" id={id}>
      <p>
        <strong>{formatCount(list.addresses.length, "address", "addresses")}</strong>
        {sentAsIs ? " in the file" : " ready to verify"}
        {list.duplicates > 0
          ? `; ${formatCount(list.duplicates, "repeat", "repeats")} ${sentAsIs ? "(each checked again)" : "left out"}`
          : ""}
        .
      </p>
      {list.invalid.length > 0 ? (
        <p className="verify-invalid">
          {formatCount(list.invalid.length, "entry is", "entries are")} not an address
          {sentAsIs ? " (the service reports them as invalid, 1 credit each)" : " and will be left out"}:{" "}
          {invalidLine(list.invalid)}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A batch job from a pasted list or a file: the list is read here first (count, repeats, entries
 * that are not addresses), then a review says how many addresses and the most it can cost before
 * anything is sent.
 */
export function BatchForm({
  draft,
  onStarted,
}: {
  draft: BatchDraft | null;
  onStarted(job: StartedJob): void;
}) {
  const id = useId();
  const [mode, setMode] = useState<Mode>("paste");
  const [fileState, setFileState] = useState<FileState>({ state: "none" });
  const [review, setReview] = useState<Review | null>(null);
  const [started, setStarted] = useState<StartedJob | null>(null);
  const start = useStartBatchSpend((job) => {
    onStarted(job);
    setStarted(job);
    setReview(null);
    reset({ list: "" });
    setFileState({ state: "none" });
    if (fileInput.current) fileInput.current.value = "";
  });
  const credits = useCredits();
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const fileInput = useRef<HTMLInputElement | null>(null);
  const reviewHeading = useRef<HTMLHeadingElement | null>(null);
  const section = useRef<HTMLElement | null>(null);
  const {
    register,
    handleSubmit,
    watch,
    setValue,
    reset,
    formState: { errors },
  } = useForm<PasteValues>({ defaultValues: { list: "" }, resolver: zodResolver(pasteSchema) });
  const field = register("list");
  const pasted = watch("list");
  const list = parseAddressList(pasted);
  const error = errors.list?.message;

  // A list moved from the single-address box: show it here, ready to review.
  useEffect(() => {
    if (!draft) return;
    setMode("paste");
    setReview(null);
    setValue("list", draft.text, { shouldValidate: false });
    section.current?.scrollIntoView({ block: "start", behavior: "smooth" });
    textarea.current?.focus();
  }, [draft, setValue]);

  useEffect(() => {
    if (review) reviewHeading.current?.focus();
  }, [review]);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setStarted(null);
    if (!file) {
      setFileState({ state: "none" });
      return;
    }
    if (file.size > UPLOAD_MAX_BYTES) {
      setFileState({
        state: "read",
        file,
        text: "",
        result: {
          ok: false,
          error: `The file is ${formatNumber(Math.ceil(file.size / 1024))} KB; the most one upload takes is 1 MB. Split it into smaller files.`,
        },
      });
      return;
    }
    setFileState({ state: "reading", name: file.name });
    try {
      const text = await file.text();
      setFileState({ state: "read", file, text, result: parseListFile(file.name, text) });
    } catch {
      setFileState({
        state: "read",
        file,
        text: "",
        result: { ok: false, error: "The file could not be read. Choose it again." },
      });
    }
  };

  // A start whose outcome is not known must be tried again or forgotten first (the notice above
  // says so): forgetting it here would let the next start buy a second job.
  const unfinished = isWaiting(start.state);
  const openReview = (next: Review) => {
    if (unfinished) return;
    start.reset();
    setStarted(null);
    setReview(next);
  };

  const reviewPaste = handleSubmit(({ list: text }) => {
    const parsed = parseAddressList(text);
    const notes: string[] = [];
    if (parsed.duplicates > 0)
      notes.push(`${formatCount(parsed.duplicates, "repeat is", "repeats are")} left out.`);
    if (parsed.invalid.length > 0)
      notes.push(
        `${formatCount(parsed.invalid.length, "entry that is", "entries that are")} not an address left out.`,
      );
    openReview({
      source: { kind: "list", addresses: parsed.addresses, filename: pastedListName() },
      addresses: parsed.addresses.length,
      from: "the pasted list",
      notes,
    });
  });

  const reviewFile = () => {
    if (fileState.state !== "read" || !fileState.result.ok) {
      fileInput.current?.focus();
      return;
    }
    const { file, text, result } = fileState;
    const notes: string[] = [];
    if (result.kind === "txt") {
      notes.push("A .txt file is sent as a one-column CSV of its distinct addresses.");
      openReview({
        source: { kind: "list", addresses: result.entries, filename: file.name },
        addresses: result.entries.length,
        from: file.name,
        notes,
      });
      return;
    }
    if (result.list.duplicates > 0 || result.list.invalid.length > 0)
      notes.push(
        "The file is sent as it is: every line is checked, repeats and entries that are not addresses included. To leave them out, paste the addresses instead.",
      );
    openReview({
      source: { kind: "file", name: file.name, type: file.type, text },
      addresses: result.entries.length,
      from: file.name,
      notes,
    });
  };

  const startJob = () => {
    if (!review) return;
    const spend: BatchSpend = { source: review.source, addresses: review.addresses };
    start.confirm([spend], `A batch job of ${review.addresses} addresses from ${review.from}`);
  };

  const balance = credits.data?.credits ?? null;
  const cannotBuy = useAbilities().why("buy");
  const { state } = start;
  const failure = state.phase === "failed" ? state.error : null;

  return (
    <section className="card verify-card" aria-labelledby={`${id}-title`} ref={section}>
      <h2 className="card-title" id={`${id}-title`}>
        Verify a list as a batch job
      </h2>
      <p className="verify-hint muted">
        For 10 addresses or more. The job runs on the service; follow it below, cancel it, and download the
        results as CSV. Up to {formatNumber(BATCH_MAX)} addresses per job.
      </p>
      {isWaiting(state) ? (
        <SpendNotice
          className="alert verify-alert"
          state={state}
          words={{
            what: "the start of the job",
            check: "the list of jobs below and the balance on the Account page",
            againLabel: "Start it again…",
          }}
          onRetry={start.retry}
          onBuyAgain={start.buyAgain}
          onForget={start.forget}
        />
      ) : null}
      {state.phase === "approval" || state.phase === "denied" ? (
        <ApprovalNotice
          state={state}
          what="the job"
          onSeen={start.approvalSeen}
          onResume={start.resume}
          onForget={start.forget}
        />
      ) : null}

      {start.notPersisted ? (
        <NotKeptNote
          className="notice-warning verify-warning"
          what="the job's request"
          until="it has started"
        />
      ) : null}

      {review ? (
        <section className="verify-review" aria-labelledby={`${id}-review`}>
          <h3 className="verify-review-title" id={`${id}-review`} ref={reviewHeading} tabIndex={-1}>
            Start a job for {formatCount(review.addresses, "address", "addresses")}?
          </h3>
          <dl className="facts">
            <dt>Addresses</dt>
            <dd data-testid="review-count">{formatNumber(review.addresses)}</dd>
            <dt>From</dt>
            <dd className="verify-break">{review.from}</dd>
            <dt>Most it can cost</dt>
            <dd>
              {formatCredits(review.addresses)}{" "}
              <span className="muted">(1 per definite answer; unknown answers are free)</span>
            </dd>
            <dt>Your balance</dt>
            <dd>{balance === null ? "Not known right now" : formatCredits(balance)}</dd>
          </dl>
          {review.notes.map((note) => (
            <p className="muted" key={note}>
              {note}
            </p>
          ))}
          {balance !== null && balance < review.addresses ? (
            <p className="notice-warning verify-warning">
              The balance may run out before the end: the job then stops with an error, and results so far
              cannot be downloaded. Consider a shorter list.
            </p>
          ) : null}
          {cannotBuy ? (
            <p className="verify-field-error" role="alert">
              {cannotBuy}
            </p>
          ) : null}
          {failure ? (
            <div className="alert verify-alert" role="alert">
              <p>
                <strong>The job did not start.</strong> {readableError(failure)}
              </p>
            </div>
          ) : null}
          <div className="verify-actions">
            <button
              type="button"
              className="button button-primary"
              onClick={startJob}
              // A start waiting above is sent, or dismissed, from there: never a second one from here.
              disabled={start.busy || unfinished || cannotBuy !== null}
            >
              {start.busy ? "Starting…" : "Start verification job"}
            </button>
            <button
              type="button"
              className="button button-secondary"
              onClick={() => setReview(null)}
              disabled={start.busy}
            >
              Back
            </button>
          </div>
        </section>
      ) : (
        <>
          <fieldset className="verify-modes">
            <legend className="visually-hidden">Where the addresses come from</legend>
            {(["paste", "file"] as const).map((value) => (
              <label key={value} className="verify-mode">
                <input
                  type="radio"
                  name={`${id}-mode`}
                  value={value}
                  checked={mode === value}
                  onChange={() => setMode(value)}
                />
                <span>{value === "paste" ? "Paste addresses" : "Upload a file"}</span>
              </label>
            ))}
          </fieldset>

          {mode === "paste" ? (
            <form className="form" noValidate onSubmit={reviewPaste}>
              <div className="field">
                <label className="field-label" htmlFor={`${id}-list`}>
                  Addresses
                </label>
                <textarea
                  {...field}
                  ref={(element) => {
                    field.ref(element);
                    textarea.current = element;
                  }}
                  id={`${id}-list`}
                  className="input verify-textarea"
                  rows={7}
                  spellCheck={false}
                  placeholder={"jane@company.com\nsales@company.com, joe@example.org"}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={`${id}-list-hint ${id}-list-summary${error ? ` ${id}-list-error` : ""}`}
                />
                <p className="verify-hint muted" id={`${id}-list-hint`}>
                  One per line, or separated by commas, semicolons or spaces. Repeats are left out (case does
                  not matter).
                </p>
                {error ? (
                  <p className="verify-field-error" id={`${id}-list-error`} role="alert">
                    {error}
                  </p>
                ) : null}
                <ListSummary list={list} id={`${id}-list-summary`} sentAsIs={false} />
              </div>
              <div className="verify-actions">
                <button type="submit" className="button button-primary">
                  Review and start
                </button>
              </div>
            </form>
          ) : (
            <div className="form">
              <div className="field">
                <label className="field-label" htmlFor={`${id}-file`}>
                  File (.csv, .json or .txt)
                </label>
                <input
                  ref={fileInput}
                  id={`${id}-file`}
                  className="input verify-file"
                  type="file"
                  accept=".csv,.json,.txt,text/csv,application/json,text/plain"
                  onChange={(event) => void onFile(event)}
                  aria-describedby={`${id}-file-hint ${id}-file-summary`}
                />
                <p className="verify-hint muted" id={`${id}-file-hint`}>
                  CSV: a column named email (or the first column holding addresses), with or without a header
                  row. JSON: a list of addresses, or of objects with an “email”. Text: addresses separated by
                  lines, commas or spaces. At most 1 MB.
                </p>
                <div id={`${id}-file-summary`} aria-live="polite">
                  {fileState.state === "reading" ? <p className="muted">Reading {fileState.name}…</p> : null}
                  {fileState.state === "read" && !fileState.result.ok ? (
                    <p className="verify-field-error" role="alert">
                      {fileState.result.error}
                    </p>
                  ) : null}
                  {fileState.state === "read" && fileState.result.ok ? (
                    <ListSummary
                      list={fileState.result.list}
                      id={`${id}-file-list`}
                      sentAsIs={fileState.result.kind !== "txt"}
                    />
                  ) : null}
                </div>
              </div>
              <div className="verify-actions">
                <button
                  type="button"
                  className="button button-primary"
                  onClick={reviewFile}
                  disabled={fileState.state !== "read" || !fileState.result.ok}
                >
                  Review and start
                </button>
              </div>
            </div>
          )}
        </>
      )}
      <div aria-live="polite" className="verify-started">
        {started ? (
          <p className="verify-success">
            Job {jobLabel(started.id)} started with {formatCount(started.addresses, "address", "addresses")}.
            Follow it in the list below.
          </p>
        ) : null}
      </div>
    </section>
  );
}
