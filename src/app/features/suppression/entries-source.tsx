import { type ChangeEvent, useId, useState } from "react";
import { formatBytes, formatNumber } from "../../lib/format";
import { MAX_TEXT_BYTES } from "./api/lists";

/** A CSV file read in the browser: its name, size and text (sent as the body's `text`). */
export interface ReadFile {
  name: string;
  bytes: number;
  text: string;
  lines: number;
}

/** Reads a chosen file's text; refuses one larger than the proxy takes, in words. */
export async function readListFile(file: File): Promise<ReadFile | string> {
  if (file.size > MAX_TEXT_BYTES)
    return `${file.name} is ${formatBytes(file.size)}; a list takes at most 20 MB at once. Split it in parts.`;
  try {
    const text = await file.text();
    const lines = text.split(/\r\n|\n|\r/).filter((line) => line.trim() !== "").length;
    return { name: file.name, bytes: file.size, text, lines };
  } catch {
    return `${file.name} could not be read. Choose it again, or paste its lines instead.`;
  }
}

/**
 * Where a list's entries come from: a CSV file read here in the browser, or lines pasted in the box
 * (one entry a line: a company domain, a company or contact id, a LinkedIn profile or an email).
 */
export function EntriesSource({
  file,
  onFile,
  pasteProps,
  problem,
  disabled,
}: {
  file: ReadFile | null;
  onFile: (file: ReadFile | null) => void;
  /** The pasted text's field (react-hook-form's register). */
  pasteProps: React.TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: React.Ref<HTMLTextAreaElement> };
  problem: string | null;
  disabled?: boolean;
}) {
  const id = useId();
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = "";
    if (!chosen) return;
    const read = await readListFile(chosen);
    if (typeof read === "string") {
      setFileProblem(read);
      onFile(null);
    } else {
      setFileProblem(null);
      onFile(read);
    }
  };
  const describedBy = [`${id}-hint`, problem ? `${id}-problem` : null].filter(Boolean).join(" ");
  return (
    <div className="sup-source">
      <div className="field">
        <label className="field-label" htmlFor={`${id}-paste`}>
          Entries, one a line
        </label>
        <textarea
          id={`${id}-paste`}
          className="input sup-paste"
          rows={6}
          spellCheck={false}
          placeholder={"acme.com\nhttps://www.linkedin.com/in/jane-doe\nceo@example.org"}
          disabled={disabled || file !== null}
          aria-invalid={problem ? true : undefined}
          aria-describedby={describedBy}
          {...pasteProps}
        />
        <p className="hint-text" id={`${id}-hint`}>
          Company domains, company ids, contact ids, LinkedIn profiles or email addresses. Each line's kind is
          read from its shape, or from a CSV file's header row.
        </p>
      </div>
      <div className="field sup-file">
        <label className="field-label" htmlFor={`${id}-file`}>
          Or upload a CSV file
        </label>
        <input
          id={`${id}-file`}
          className="sup-file-input"
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          disabled={disabled}
          onChange={(event) => void choose(event)}
        />
        {file ? (
          <p className="sup-file-chosen" data-testid="chosen-file">
            Read {file.name}: {formatBytes(file.bytes)}, {formatNumber(file.lines)}{" "}
            {file.lines === 1 ? "line" : "lines"}; it is sent instead of the box above.{" "}
            <button
              type="button"
              className="button button-quiet"
              onClick={() => onFile(null)}
              disabled={disabled}
            >
              Use the box instead
            </button>
          </p>
        ) : null}
      </div>
      {fileProblem ? (
        <p className="sup-error" role="alert">
          {fileProblem}
        </p>
      ) : null}
      {problem ? (
        <p className="sup-error" id={`${id}-problem`} role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
