import { useId, useState } from "react";
import { saveTextFile } from "../../api/download";
import { type BrowserAudience, type LeftBehind, leftBehindText } from "../../lib/browser-audiences";

/** The file the whole of what stayed in this browser downloads as. */
export const LEFT_BEHIND_FILE = "audiences-from-this-browser.json";

/**
 * The audiences an earlier version saved in this browser that did not move to the server (refused,
 * or unreadable by this version). They are in no list of the team's, so they are shown here on every
 * load, with the server's reason, and ways to get them out: all of them downloaded as JSON (the stored
 * value as it is), or one opened in the Builder, to be saved from there.
 */
export function LeftBehindNotice({
  left,
  onOpen,
}: {
  left: LeftBehind;
  onOpen(entry: BrowserAudience): void;
}) {
  const id = useId();
  const [downloaded, setDownloaded] = useState(false);
  // Each entry says its own reason only when they differ (else the first sentence says it once).
  const reasons = new Set(left.refused.map((r) => r.reason));
  const eachReason = reasons.size > 1;

  const download = () => {
    let text = left.raw;
    try {
      text = `${JSON.stringify(JSON.parse(left.raw), null, 2)}\n`;
    } catch {
      // Not JSON: downloaded exactly as it is stored.
    }
    saveTextFile(text, LEFT_BEHIND_FILE, "application/json");
    setDownloaded(true);
  };

  return (
    <section
      className="notice-warning notice-stack saved-left"
      aria-labelledby={`${id}-text`}
      data-testid="saved-left-behind"
    >
      <p id={`${id}-text`}>{leftBehindText(left)}</p>
      {left.refused.length > 0 ? (
        <ul className="saved-left-list">
          {left.refused.map(({ entry, reason }) => (
            <li key={entry.id}>
              <span>
                “{entry.name}”{eachReason ? `: ${reason ?? "the server refused it"}` : ""}
              </span>
              <button
                type="button"
                className="button button-quiet"
                onClick={() => onOpen(entry)}
                aria-label={`Open “${entry.name}” from this browser in the Builder`}
              >
                Open in the Builder
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="saved-left-actions">
        <button type="button" className="button button-secondary" onClick={download}>
          Download as JSON
        </button>
        <span role="status" className="muted">
          {downloaded ? `Downloaded ${LEFT_BEHIND_FILE}.` : ""}
        </span>
      </div>
    </section>
  );
}
