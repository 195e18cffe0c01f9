import { zodResolver } from "@hookform/resolvers/zod";
import { type FormEvent, useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { type SuppressionImport, type SuppressionList, suppressionCreate } from "../../../contract/spending";
import { Field } from "../../ui/field";
import { useAddEntries, useCreateList } from "./api/lists";
import { EntriesSource, type ReadFile } from "./entries-source";
import { ImportResult } from "./import-result";
import { listRefusal } from "./suppression-words";

const createForm = z.object({ name: suppressionCreate.shape.name, text: z.string() });
const addForm = z.object({ name: z.string(), text: z.string() });
type ImportFormValues = z.input<typeof createForm>;

const NOTHING = "Paste at least one entry, or choose a CSV file.";

/**
 * A new list (a name and its entries) or more entries for `list`: pasted lines or a CSV file read
 * in the browser, sent as text; the answer says what was added and which lines were not used.
 */
export function ImportForm({
  list,
  onDone,
}: {
  list?: SuppressionList;
  onDone?: (result: SuppressionImport) => void;
}) {
  const adding = list !== undefined;
  const create = useCreateList();
  const add = useAddEntries();
  const mutation = adding ? add : create;
  const [file, setFile] = useState<ReadFile | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [result, setResult] = useState<SuppressionImport | null>(null);
  const form = useForm<ImportFormValues>({
    resolver: zodResolver(adding ? addForm : createForm),
    defaultValues: { name: "", text: "" },
  });
  const { errors } = form.formState;
  const forget = () => {
    setProblem(null);
    if (mutation.isError) mutation.reset();
  };
  const validateAndSend = form.handleSubmit((values) => {
    const text = file ? file.text : values.text;
    if (text.trim() === "") {
      setProblem(NOTHING);
      return;
    }
    setProblem(null);
    setResult(null);
    const done = (answer: SuppressionImport) => {
      setResult(answer);
      setFile(null);
      form.reset({ name: "", text: "" });
      onDone?.(answer);
    };
    if (adding) add.mutate({ listId: list.id, text }, { onSuccess: done });
    else create.mutate({ name: values.name, text }, { onSuccess: done });
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    forget();
    return validateAndSend(event);
  };
  const title = adding ? `Add entries to ${list.name}` : "New list";

  return (
    <form className="form sup-form" onSubmit={submit} onChange={forget} noValidate aria-label={title}>
      {adding ? null : (
        <Field className="sup-name" label="Name of the list" error={errors.name?.message}>
          {(control) => (
            <input
              {...control}
              className="input"
              autoComplete="off"
              maxLength={120}
              {...form.register("name")}
            />
          )}
        </Field>
      )}
      <EntriesSource
        file={file}
        onFile={(read) => {
          forget();
          setFile(read);
        }}
        pasteProps={form.register("text")}
        problem={problem}
        disabled={mutation.isPending}
      />
      {mutation.isError ? (
        <p className="alert sup-alert" role="alert">
          {listRefusal(mutation.error, adding ? "add" : "create")}
        </p>
      ) : null}
      <div className="sup-actions">
        <button type="submit" className="button button-primary" disabled={mutation.isPending}>
          {mutation.isPending
            ? adding
              ? "Adding…"
              : "Creating…"
            : adding
              ? "Add to the list"
              : "Create the list"}
        </button>
      </div>
      <div aria-live="polite">{result ? <ImportResult result={result} /> : null}</div>
    </form>
  );
}
