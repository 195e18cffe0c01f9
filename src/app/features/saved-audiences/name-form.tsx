import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useId, useRef } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { NAME_MAX, nameFormSchema } from "./audience-names";

const formSchema = nameFormSchema.extend({ shared: z.boolean() });
type FormValues = z.input<typeof formSchema>;

export type NameSubmitResult = { ok: true } | { ok: false; error: string };

/**
 * A one-field form for a saved audience's name (Save as new…, Rename): required, trimmed, at most
 * 120 characters. With `shareLabel`, a checkbox to share the audience with the team. Submitting may
 * take a moment (the server answers): `onSubmit` resolves with the result. Focuses its field when
 * it opens; Escape cancels.
 */
export function NameForm({
  label,
  defaultValue,
  submitLabel,
  shareLabel,
  onSubmit,
  onCancel,
  className,
}: {
  label: string;
  defaultValue: string;
  submitLabel: string;
  /** Shows a "share with the team" checkbox with this label (Save as new). */
  shareLabel?: string;
  onSubmit(name: string, shared: boolean): Promise<NameSubmitResult>;
  onCancel(): void;
  className?: string;
}) {
  const id = useId();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<FormValues>({
    defaultValues: { name: defaultValue, shared: false },
    resolver: zodResolver(formSchema),
  });
  const input = useRef<HTMLInputElement | null>(null);
  const field = register("name");

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const error = errors.name?.message;

  const submit = handleSubmit(async ({ name, shared }) => {
    const result = await onSubmit(name, shared);
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
          </div>
        ) : (
          <p className="name-form-hint" id={`${id}-hint`}>
            Up to {NAME_MAX} characters. Press Escape to cancel.
          </p>
        )}
        {shareLabel ? (
          <label className="name-form-share">
            <input type="checkbox" {...register("shared")} />
            <span>{shareLabel}</span>
          </label>
        ) : null}
      </div>
      <FormActions
        submitLabel={isSubmitting ? "Saving…" : submitLabel}
        submitDisabled={isSubmitting}
        onCancel={onCancel}
      />
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
