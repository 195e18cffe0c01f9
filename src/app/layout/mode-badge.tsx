import { useId } from "react";
import type { Session } from "../api/session";

const MODES = {
  sandbox: {
    label: "Sandbox",
    className: "badge badge-sandbox",
    tip: "Sandbox: the data is synthetic, made up by the built-in emulator of the service. No real people, and its credits are not real money.",
  },
  live: {
    label: "Live",
    className: "badge badge-live",
    tip: "Live: connected to the real data service. Purchases spend real credits.",
  },
} as const;

/**
 * Which data the app is on, impossible to miss: amber "Sandbox" or green "Live". The explanation is
 * a tooltip that opens on hover and on keyboard focus, and is read by screen readers.
 */
export function ModeBadge({ mode }: { mode: Session["mode"] }) {
  const tipId = useId();
  const m = MODES[mode];
  return (
    <span className="has-tooltip">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that keyboard users can read the tooltip */}
      <span className={m.className} tabIndex={0} aria-describedby={tipId}>
        <span className="badge-dot" aria-hidden="true" />
        {m.label}
      </span>
      <span className="tooltip" role="tooltip" id={tipId}>
        {m.tip}
      </span>
    </span>
  );
}
