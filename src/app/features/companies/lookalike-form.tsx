import { zodResolver } from "@hookform/resolvers/zod";
import { useId } from "react";
import { useForm } from "react-hook-form";
import { COMPANY_COLUMNS, labelOf } from "../../../contract/columns";
import { LOOKALIKE_LIMIT } from "../../../contract/inferred";
import { Field } from "../../ui/field";
import {
  ALWAYS_COLUMNS,
  CHOOSABLE_COLUMNS,
  DEFAULT_FORM_VALUES,
  type LookalikeFormValues,
  type LookalikeSearch,
  lookalikeFormSchema,
  toLookalikeSearch,
} from "./lookalike-form-schema";

const COMPANY_FIELD: Record<LookalikeFormValues["by"], { label: string; placeholder: string; hint: string }> =
  {
    domain: {
      label: "Website domain",
      placeholder: "acme.com",
      hint: "A pasted address works too: https://www.acme.com/about is read as acme.com.",
    },
    name: {
      label: "Company name",
      placeholder: "Acme",
      hint: "As the data writes it (any case). When several companies share it, you choose one.",
    },
    rbidOrg: {
      label: "Company ID",
      placeholder: "org_1a2b3c4d5e6f",
      hint: "The Company ID column of a sample or of a lookalike.",
    },
  };

/**
 * Which company to find lookalikes of, how many, and which columns to see. `busy` disables the
 * submit button while the search runs (so a double click asks once).
 */
export function LookalikeForm({
  busy,
  onSubmit,
}: {
  busy: boolean;
  onSubmit(search: LookalikeSearch): void;
}) {
  const id = useId();
  const {
    register,
    handleSubmit,
    watch,
    formState: { errors },
  } = useForm<LookalikeFormValues>({
    defaultValues: DEFAULT_FORM_VALUES,
    resolver: zodResolver(lookalikeFormSchema),
  });
  const by = watch("by");
  const allColumns = watch("allColumns");
  const field = COMPANY_FIELD[by];
  const columnsError = errors.columns?.message;

  return (
    <form
      className="lookalike-form"
      noValidate
      aria-label="Find lookalike companies"
      onSubmit={handleSubmit((values) => onSubmit(toLookalikeSearch(values)))}
    >
      <fieldset className="lookalike-by">
        <legend className="field-label">Name the company by</legend>
        <div className="lookalike-by-options">
          <label className="lookalike-choice">
            <input type="radio" value="domain" {...register("by")} />
            <span>Website domain</span>
          </label>
          <label className="lookalike-choice">
            <input type="radio" value="name" {...register("by")} />
            <span>Company name</span>
          </label>
          <label className="lookalike-choice">
            <input type="radio" value="rbidOrg" {...register("by")} />
            <span>Company ID</span>
          </label>
        </div>
      </fieldset>

      <div className="lookalike-row">
        <Field
          className="lookalike-company"
          label={field.label}
          hint={field.hint}
          error={errors.company?.message}
          errorReplacesHint
        >
          {(control) => (
            <input
              {...register("company")}
              {...control}
              className="input"
              type="text"
              inputMode={by === "domain" ? "url" : "text"}
              autoComplete="off"
              spellCheck={false}
              placeholder={field.placeholder}
            />
          )}
        </Field>
        <Field
          className="lookalike-limit"
          label="How many"
          hint={`${LOOKALIKE_LIMIT.min} to ${LOOKALIKE_LIMIT.max}`}
          error={errors.limit?.message}
          errorReplacesHint
        >
          {(control) => (
            <input
              {...register("limit", { valueAsNumber: true })}
              {...control}
              className="input"
              type="number"
              inputMode="numeric"
              min={LOOKALIKE_LIMIT.min}
              max={LOOKALIKE_LIMIT.max}
              step={1}
            />
          )}
        </Field>
      </div>

      <fieldset
        className="lookalike-columns"
        aria-describedby={columnsError ? `${id}-columns-error` : `${id}-columns-hint`}
      >
        <legend className="field-label">More columns to show</legend>
        <label className="lookalike-choice lookalike-all">
          <input type="checkbox" {...register("allColumns")} />
          <span>All columns</span>
        </label>
        {allColumns ? null : (
          <div className="lookalike-column-grid">
            {CHOOSABLE_COLUMNS.map((name) => (
              <label key={name} className="lookalike-choice">
                <input type="checkbox" value={name} {...register("columns")} />
                <span>{labelOf(name)}</span>
              </label>
            ))}
          </div>
        )}
        {columnsError ? (
          <p className="companies-error" id={`${id}-columns-error`} role="alert">
            {columnsError}
          </p>
        ) : (
          <p className="companies-hint" id={`${id}-columns-hint`}>
            {allColumns
              ? `Every company column (${COMPANY_COLUMNS.length}) comes back. `
              : `${ALWAYS_COLUMNS.map(labelOf).join(", ")} and Company ID always come back. `}
            Companies are compared on what they do, not on their names.
          </p>
        )}
      </fieldset>

      <div className="lookalike-actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? "Finding…" : "Find lookalikes"}
        </button>
      </div>
    </form>
  );
}
