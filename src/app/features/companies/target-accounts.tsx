import { type ChangeEvent, type ReactNode, useId, useState } from "react";
import { describeNode } from "../../../contract/describe";
import type { ConditionNode, FilterNode } from "../../../contract/filter";
import { VALUE_LIST_MAX } from "../../../contract/inferred";
import { newId } from "../../lib/filter/tree";
import { formatBytes, formatNumber } from "../../lib/format";
import { ProgressBar } from "../../ui/progress-bar";
import { ErrorPanel } from "../../ui/status";
import { peopleText } from "./addable-values";
import { listNotes } from "./domains";
import { type DomainCheck, useDomainCheck } from "./use-domain-check";

/** A file larger than this is not a list of domains (10,000 long addresses are about 1 MB). */
const FILE_MAX_BYTES = 5 * 1024 * 1024;
/** Unmatched domains listed on the page; the rest are counted (and copied with the button). */
const UNMATCHED_SHOWN = 200;

const domainsText = (count: number) => `${formatNumber(count)} ${count === 1 ? "domain" : "domains"}`;

/** The condition a checked list becomes: the domains the data holds. */
export function domainListCondition(domains: readonly string[]): ConditionNode {
  return { type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: [...domains], id: newId() };
}

function Notes({ check }: { check: Exclude<DomainCheck, { state: "idle" }> }) {
  const notes = listNotes(check.list);
  if (notes.length === 0) return null;
  return (
    <ul className="target-notes" aria-label="How the list was read">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

function Unmatched({ domains }: { domains: readonly string[] }) {
  const id = useId();
  const [copied, setCopied] = useState<string | null>(null);
  if (domains.length === 0) return null;
  const copy = () =>
    navigator.clipboard.writeText(domains.join("\n")).then(
      () => setCopied(`Copied ${domainsText(domains.length)}.`),
      () => setCopied("This browser would not copy them; select the list instead."),
    );
  return (
    <div className="target-unmatched">
      <div className="target-unmatched-head">
        <h3 className="target-subtitle" id={`${id}-title`}>
          Not in the data: {domainsText(domains.length)}
        </h3>
        <button type="button" className="button button-quiet" onClick={() => void copy()}>
          Copy them
        </button>
        <span className="muted" role="status">
          {copied}
        </span>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling list must be reachable by keyboard to scroll it. */}
      <ul className="target-unmatched-list" aria-labelledby={`${id}-title`} tabIndex={0}>
        {domains.slice(0, UNMATCHED_SHOWN).map((domain) => (
          <li key={domain}>{domain}</li>
        ))}
      </ul>
      {domains.length > UNMATCHED_SHOWN ? (
        <p className="muted">and {formatNumber(domains.length - UNMATCHED_SHOWN)} more.</p>
      ) : null}
    </div>
  );
}

/**
 * A target-account list (domains pasted, or a .csv or .txt file) checked against the data for
 * free: "Matched 183 of 200 domains", the ones it does not hold listed, what reading the list
 * changed or left out said, and the matched ones added to the audience as one condition
 * (Company domain is one of …).
 */
export function TargetAccounts({ onAdd }: { onAdd(node: FilterNode): void }) {
  const id = useId();
  const [text, setText] = useState("");
  const [file, setFile] = useState<string | null>(null);
  const { check, start, stop, resume } = useDomainCheck();
  const busy = check.state === "checking";

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = "";
    if (!chosen) return;
    if (chosen.size > FILE_MAX_BYTES) {
      setFile(`${chosen.name} is ${formatBytes(chosen.size)}; a list of domains takes at most 5 MB.`);
      return;
    }
    try {
      const read = await chosen.text();
      setText(read);
      setFile(`Read ${chosen.name} (${formatBytes(chosen.size)}) into the box above.`);
      start(read);
    } catch {
      setFile(`${chosen.name} could not be read. Choose it again, or paste its lines.`);
    }
  };

  return (
    <section className="card target-accounts" aria-labelledby={`${id}-title`}>
      <h2 className="card-title" id={`${id}-title`}>
        Target accounts
      </h2>
      <p className="companies-lead">
        Paste the website domains of the companies you want to reach, or upload a file of them; see which ones
        the data holds, and add them to your audience as one condition. Checking costs nothing.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-domains`}>
          Company domains
        </label>
        <textarea
          id={`${id}-domains`}
          className="input target-paste"
          rows={6}
          spellCheck={false}
          autoComplete="off"
          placeholder={"acme.com\nhttps://www.globex.com/about\njane@initech.io"}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-describedby={`${id}-hint`}
        />
        <p className="companies-hint" id={`${id}-hint`}>
          One or more a line. Web and email addresses are read as their domain; a CSV file's Domain or Website
          column is used when it has one. At most {formatNumber(VALUE_LIST_MAX)} domains.
        </p>
      </div>
      <div className="target-actions">
        <div className="field target-file">
          <label className="field-label" htmlFor={`${id}-file`}>
            Or upload a .csv or .txt file
          </label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            disabled={busy}
            onChange={(event) => void choose(event)}
          />
        </div>
        <button
          type="button"
          className="button button-primary"
          disabled={busy || text.trim() === ""}
          onClick={() => {
            setFile(null);
            start(text);
          }}
        >
          Check the domains
        </button>
      </div>
      {file ? (
        <p className="companies-hint" role="status">
          {file}
        </p>
      ) : null}
      <TargetResult check={check} onStop={stop} onResume={resume} onAdd={onAdd} />
    </section>
  );
}

function TargetResult({
  check,
  onStop,
  onResume,
  onAdd,
}: {
  check: DomainCheck;
  onStop(): void;
  onResume(): void;
  onAdd(node: FilterNode): void;
}) {
  if (check.state === "idle") return null;
  const total = check.list.domains.length;
  let body: ReactNode;
  if (check.state === "empty")
    body = (
      <p className="alert" role="alert">
        No domain was found in what was given.
      </p>
    );
  else if (check.state === "checking") {
    const { checked, waitSeconds } = check.progress;
    body = (
      <div className="target-progress">
        <ProgressBar
          value={checked}
          max={total}
          label="Checking the domains"
          valueText={`${formatNumber(checked)} of ${domainsText(total)}`}
        />
        {waitSeconds !== null ? (
          <p className="muted" role="status">
            The service asked to wait {formatNumber(waitSeconds)} {waitSeconds === 1 ? "second" : "seconds"}{" "}
            before more; checking goes on by itself.
          </p>
        ) : null}
        <button type="button" className="button button-secondary" onClick={onStop}>
          Stop
        </button>
      </div>
    );
  } else if (check.state === "stopped")
    body = (
      <div className="target-progress">
        <p role="status">
          Stopped after checking {formatNumber(check.progress.checked)} of {domainsText(total)}.
        </p>
        <button type="button" className="button button-secondary" onClick={onResume}>
          Go on checking
        </button>
      </div>
    );
  else if (check.state === "failed")
    body = <ErrorPanel title="The domains could not be checked" error={check.error} onRetry={onResume} />;
  else {
    const node = domainListCondition(check.matched);
    body = (
      <>
        <p className="target-matched" role="status">
          Matched {formatNumber(check.matched.length)} of {domainsText(total)}
          {check.matched.length > 0 ? `: ${peopleText(check.people)} in the data work at them.` : "."}
        </p>
        {check.matched.length > 0 ? (
          <div className="target-add">
            <button type="button" className="button button-primary" onClick={() => onAdd(node)}>
              Add the {formatNumber(check.matched.length)} matched{" "}
              {check.matched.length === 1 ? "domain" : "domains"} as a condition
            </button>
            <p className="companies-hint">Adds: {describeNode(node)}</p>
          </div>
        ) : (
          <p>None of these domains is in the data, so there is nothing to add.</p>
        )}
        <Unmatched domains={check.unmatched} />
      </>
    );
  }
  return (
    <div className="target-result" aria-live="polite">
      {body}
      <Notes check={check} />
    </div>
  );
}
