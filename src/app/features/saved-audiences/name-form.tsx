import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useId, useMemo, useRef } from "react";
import { useForm } from "react-hook-form";
import { checkName, NAME_MAX, nameFormSchema } from "./audience-names";

export type NameSubmitResult = { ok: true } | { ok: false; error: string; suggestion?: string };

/**
 * A one-field form for a saved audience's name (Save as…, Rename): required, trimmed, at most 80
 * characters, unique; a clash offers the next free `Name (2)`. Focuses its field when it opens;
 * Escape cancels.
 */
export function NameForm({
  label,
  defaultValue,
  submitLabel,
  taken,
  onSubmit,
  onCancel,
  className,
}: {
  label: string;
  defaultValue: string;
  submitLabel: string;
  /** Names already used (the item being renamed left out). */
  taken: readonly string[];
  onSubmit(name: string): NameSubmitResult;
  onCancel(): void;
  className?: string;
}) {
  const id = useId();
  const schema = useMemo(() => nameFormSchema(taken), [taken]);
  const {
    register,
    handleSubmit,
    setError,
    setValue,
    watch,
    formState: { errors },
  } = useForm<{ name: string }>({ defaultValues: { name: defaultValue }, resolver: zodResolver(schema) });
  const input = useRef<HTMLInputElement | null>(null);
  const field = register("name");

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const error = errors.name?.message;
  const value = watch("name");
  const check = error ? checkName(value, taken) : null;
  const suggestion = check && !check.ok ? check.suggestion : undefined;

  const submit = handleSubmit(({ name }) => {
    const result = onSubmit(name);
    if (!result.ok) setError("name", { type: "server", message: result.error }, { shouldFocus: true });
  });

  return (
    <form
      className={`name-form ${className ?? ""}`}
      noValidate
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onCancel();
        }
      }}
    >
      <div className="field name-form-field">
        <label className="field-label" htmlFor={`${id}-name`}>
          {label}
        </label>
        <input
          {...field}
          ref={(element) => {
            field.ref(element);
            input.current = element;
          }}
          id={`${id}-name`}
          className="input"
          type="text"
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
        />
        {error ? (
          <div className="name-form-error" id={`${id}-error`} role="alert">
            <span>{error}</span>
            {suggestion ? (
              <button
                type="button"
                className="button button-quiet"
                onClick={() => {
                  setValue("name", suggestion, { shouldValidate: true });
                  input.current?.focus();
                }}
              >
                Use “{suggestion}”
              </button>
            ) : null}
          </div>
        ) : (
          <p className="name-form-hint" id={`${id}-hint`}>
            Up to {NAME_MAX} characters. Press Escape to cancel.
          </p>
        )}
      </div>
      <FormActions submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}

/** The end of the panel's small forms: submit, and Cancel to leave without a change. */
export function FormActions({
  submitLabel,
  submitDisabled = false,
  onCancel,
}: {
  submitLabel: string;
  submitDisabled?: boolean;
  onCancel(): void;
}) {
  return (
    <div className="name-form-actions">
      <button type="submit" className="button button-primary" disabled={submitDisabled}>
        {submitLabel}
      </button>
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
