import { zodResolver } from "@hookform/resolvers/zod";
import { type ReactNode, useEffect, useId, useState } from "react";
import { type UseFormRegisterReturn, useForm } from "react-hook-form";
import type { Caps, SpendingSummary } from "../../../contract/spending";
import { formatCredits } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { Card } from "../../ui/card";
import { Field } from "../../ui/field";
import { LoadFailedAlert, LoadingNote } from "../../ui/status";
import { useCaps, useSaveCaps } from "./api/caps";
import { type CapsForm, capsFormSchema, capsToForm, formToUpdate } from "./caps-form";
import { capsRefusal } from "./spending-words";

const NO_CAP = "The team's pool";
const NO_THRESHOLD = "No approval needed";

/** What a person spent this month; a dash for someone whose spend this person may not read. */
function spentCell(spent: Map<string, number>, name: string) {
  const value = spent.get(name);
  return value === undefined ? <span className="muted">—</span> : formatCredits(value);
}

function capText(cap: number | null, none: string) {
  return cap === null ? <span className="muted">{none}</span> : formatCredits(cap);
}

/** What is set, for someone who is not an admin (they read it; only admins change it). */
function CapsTable({ caps, spent }: { caps: Caps; spent: Map<string, number> }) {
  return (
    <CapsTableFrame units="">
      <tbody>
        {caps.people.map((p) => (
          <tr key={p.name}>
            <td>{personLabel(p.name)}</td>
            <td className="spend-number">{spentCell(spent, p.name)}</td>
            <td>{capText(p.monthlyCap, NO_CAP)}</td>
            <td>{capText(p.approvalThreshold, NO_THRESHOLD)}</td>
          </tr>
        ))}
      </tbody>
    </CapsTableFrame>
  );
}

/**
 * The caps table around its rows: the same columns read and edited; the form's headers say the
 * unit, since its cells are bare number fields.
 */
function CapsTableFrame({ units, children }: { units: "" | " (credits)"; children: ReactNode }) {
  return (
    <div className="spend-table-wrap">
      <table className="list-table spend-table spend-caps-table">
        <caption className="visually-hidden">Monthly caps and approval thresholds per person</caption>
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col" className="spend-number">
              Spent this month
            </th>
            <th scope="col">Monthly cap{units}</th>
            <th scope="col">Needs approval above{units}</th>
          </tr>
        </thead>
        {children}
      </table>
    </div>
  );
}

function CapsEditor({ caps, spent }: { caps: Caps; spent: Map<string, number> }) {
  const id = useId();
  const save = useSaveCaps();
  const [said, setSaid] = useState("");
  const form = useForm<CapsForm>({ resolver: zodResolver(capsFormSchema), defaultValues: capsToForm(caps) });
  const { errors, isDirty } = form.formState;
  // Another admin saved meanwhile (the list is read again): shown, unless this admin is typing.
  useEffect(() => {
    if (!form.formState.isDirty) form.reset(capsToForm(caps));
  }, [caps, form]);
  const submit = form.handleSubmit((values) => {
    setSaid("");
    save.mutate(formToUpdate(values), {
      onSuccess: (saved) => {
        form.reset(capsToForm(saved));
        setSaid("Saved. The proxy applies the new caps to the next purchase.");
      },
    });
  });
  const fieldError = (message: string | undefined, errorId: string) =>
    message ? (
      <span className="spend-field-error" id={errorId} role="alert">
        {message}
      </span>
    ) : null;
  /** One person's credits field (a cap or a threshold), its error under it. */
  const creditsCell = (
    registration: UseFormRegisterReturn,
    label: string,
    placeholder: string,
    error: string | undefined,
    errorId: string,
  ) => (
    <td>
      <input
        className="input spend-credits-input"
        inputMode="numeric"
        placeholder={placeholder}
        aria-label={label}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...registration}
      />
      {fieldError(error, errorId)}
    </td>
  );

  return (
    <form
      className="form spend-caps-form"
      onSubmit={submit}
      onChange={() => {
        setSaid("");
        if (save.isError) save.reset();
      }}
      noValidate
      aria-label="Monthly caps and approval thresholds"
    >
      <Field
        className="spend-team-cap"
        label="The team's monthly cap (credits)"
        hint="What everyone together may spend in a month (UTC). Blank: no cap beyond the balance."
        error={errors.teamMonthlyCap?.message}
      >
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="numeric"
            placeholder="No cap"
            {...form.register("teamMonthlyCap")}
          />
        )}
      </Field>
      <CapsTableFrame units=" (credits)">
        <tbody>
          {caps.people.map((p, index) => {
            const capError = errors.people?.[index]?.monthlyCap?.message;
            const thresholdError = errors.people?.[index]?.approvalThreshold?.message;
            const who = personLabel(p.name);
            return (
              <tr key={p.name} data-person={p.name}>
                <th scope="row" className="spend-person">
                  {who}
                </th>
                <td className="spend-number">{spentCell(spent, p.name)}</td>
                {creditsCell(
                  form.register(`people.${index}.monthlyCap`),
                  `Monthly cap of ${who}`,
                  NO_CAP,
                  capError,
                  `${id}-${index}-cap-error`,
                )}
                {creditsCell(
                  form.register(`people.${index}.approvalThreshold`),
                  `Approval threshold of ${who}`,
                  NO_THRESHOLD,
                  thresholdError,
                  `${id}-${index}-threshold-error`,
                )}
              </tr>
            );
          })}
        </tbody>
      </CapsTableFrame>
      <p className="hint-text">
        Blank cap: the person draws on the team's pool. Blank threshold: their purchases need no approval. A
        purchase that would pass a cap is refused before anything is sent; one above the threshold waits for
        an admin.
      </p>
      {save.isError ? (
        <p className="alert spend-alert" role="alert">
          {capsRefusal(save.error)}
        </p>
      ) : null}
      <div className="spend-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending || !isDirty}>
          {save.isPending ? "Saving…" : "Save caps"}
        </button>
        <button
          type="button"
          className="button button-quiet"
          disabled={save.isPending || !isDirty}
          onClick={() => {
            form.reset();
            save.reset();
          }}
        >
          Undo changes
        </button>
        <span className="spend-done" aria-live="polite">
          {said}
        </span>
      </div>
    </form>
  );
}

/**
 * Monthly caps (per person and for the team) and approval thresholds. They live on the Spending
 * page rather than the Team page: an admin sets them beside the ledger and the month's spend they
 * limit, and the Team page stays about who may do what, not how much.
 */
export function CapsCard({ admin, summary }: { admin: boolean; summary: SpendingSummary | undefined }) {
  const caps = useCaps();
  const spent = new Map((summary?.people ?? []).map((p) => [p.name, p.spent]));
  return (
    <Card title="Caps and approvals">
      {caps.isPending ? (
        <LoadingNote what="the caps" />
      ) : caps.isError ? (
        <LoadFailedAlert what="the caps" error={caps.error} onRetry={() => void caps.refetch()} />
      ) : admin ? (
        // Remounted when the people change (the form's rows are theirs, by position).
        <CapsEditor key={caps.data.people.map((p) => p.name).join("\n")} caps={caps.data} spent={spent} />
      ) : (
        <>
          <p className="muted spend-lead">
            The team's monthly cap:{" "}
            {caps.data.teamMonthlyCap === null ? "none" : formatCredits(caps.data.teamMonthlyCap)}. Only an
            admin changes caps and thresholds.
          </p>
          <CapsTable caps={caps.data} spent={spent} />
        </>
      )}
    </Card>
  );
}
