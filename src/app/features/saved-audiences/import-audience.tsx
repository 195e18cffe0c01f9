import { useEffect, useId, useRef, useState } from "react";
import type { GroupNode } from "../../../contract/filter";
import { FormActions } from "./name-form";
import { IMPORT_MAX_BYTES, importTreeJson } from "./tree-json";

const LINES_SHOWN = 25;

/**
 * Import from a `.json` file or pasted text. Errors are listed line by line with their path; the
 * current audience is only replaced (through `onImported`) by a tree that passed every check.
 */
export function ImportAudience({
  onImported,
  onCancel,
}: {
  onImported(tree: GroupNode, name: string | undefined): void;
  onCancel(): void;
}) {
  const id = useId();
  const [text, setText] = useState("");
  const [failure, setFailure] = useState<{ source: string; errors: string[] } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    fileInput.current?.focus();
  }, []);

  const run = (source: string, content: string, fallbackName?: string) => {
    const result = importTreeJson(content);
    if ("errors" in result) {
      setFailure({ source, errors: result.errors });
      return;
    }
    setFailure(null);
    onImported(result.tree, result.name ?? fallbackName);
  };

  const readFile = async (file: File) => {
    if (file.size > IMPORT_MAX_BYTES) {
      setFailure({
        source: file.name,
        errors: [`The file is too large (${Math.ceil(file.size / 1024 / 1024)} MB; at most 5 MB).`],
      });
      return;
    }
    let content: string;
    try {
      content = await file.text();
    } catch (error) {
      setFailure({ source: file.name, errors: [`The file could not be read (${String(error)}).`] });
      return;
    }
    run(file.name, content, file.name.replace(/\.json$/i, "") || undefined);
  };

  const shown = failure ? failure.errors.slice(0, LINES_SHOWN) : [];
  const more = failure ? failure.errors.length - shown.length : 0;

  return (
    <section className="saved-import" aria-labelledby={`${id}-title`}>
      <h3 className="saved-subtitle" id={`${id}-title`}>
        Import an audience
      </h3>
      <p className="muted saved-import-lead">
        A <code>.json</code> file exported from Audience Builder, or a filter group. It replaces the audience
        you are building only if every rule in it is valid.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-file`}>
          Choose a file
        </label>
        <input
          ref={fileInput}
          id={`${id}-file`}
          className="saved-import-file"
          type="file"
          accept=".json,application/json"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            event.currentTarget.value = "";
            if (file) void readFile(file);
          }}
        />
      </div>
      <form
        className="form saved-import-paste"
        onSubmit={(event) => {
          event.preventDefault();
          run("The pasted text", text);
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            onCancel();
          }
        }}
      >
        <div className="field">
          <label className="field-label" htmlFor={`${id}-paste`}>
            Or paste its JSON
          </label>
          <textarea
            id={`${id}-paste`}
            className="input saved-import-text"
            rows={6}
            spellCheck={false}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            aria-describedby={failure ? `${id}-errors` : undefined}
          />
        </div>
        <FormActions
          submitLabel="Import pasted JSON"
          submitDisabled={text.trim() === ""}
          onCancel={onCancel}
        />
      </form>
      {failure ? (
        <div className="saved-import-errors" id={`${id}-errors`} role="alert">
          <p className="saved-import-errors-title">
            {failure.source} can’t be imported. Your current audience is unchanged.
          </p>
          <ul>
            {shown.map((line, index) => (
              // Lines may repeat; their order is stable for one failure.
              // biome-ignore lint/suspicious/noArrayIndexKey: a static list, replaced as a whole
              <li key={index}>{line}</li>
            ))}
          </ul>
          {more > 0 ? <p>…and {more} more.</p> : null}
        </div>
      ) : null}
    </section>
  );
}
