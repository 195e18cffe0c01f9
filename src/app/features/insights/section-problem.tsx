import { LoadFailedAlert } from "../../ui/status";

/** A section that could not be loaded: what failed, why, and a way to ask again (the panel's spacing). */
export function SectionProblem(props: { what: string; error: Error; onRetry: () => void }) {
  return <LoadFailedAlert {...props} className="insights-problem" />;
}
