import { useCallback, useState } from "react";
import { type BatchDraft, BatchForm } from "../features/verify/batch-form";
import { jobHistory } from "../features/verify/job-history";
import { JobsPanel } from "../features/verify/jobs-panel";
import { VerifyRoleNotice } from "../features/verify/role-notice";
import { SingleVerify } from "../features/verify/single-verify";
import type { StartedJob } from "../features/verify/start-batch";
import { Page } from "../ui/page";

/**
 * Email verification: one address in real time (a pasted list is offered to the batch form), a
 * list as a batch job, and the jobs with their progress, cancel and CSV results. The feature uses
 * the service's v2 interface, and v1 only where v2 is absent.
 */
export function VerifyPage() {
  const [draft, setDraft] = useState<BatchDraft | null>(null);
  const moveToBatch = useCallback((text: string) => setDraft({ text, nonce: Date.now() }), []);
  const onStarted = useCallback((job: StartedJob) => jobHistory.add(job, job.addresses), []);
  return (
    <Page title="Verify" lead="Check that email addresses will receive mail before you send to them.">
      <VerifyRoleNotice />
      <div className="verify-grid">
        <SingleVerify onMoveToBatch={moveToBatch} />
        <BatchForm draft={draft} onStarted={onStarted} />
      </div>
      <JobsPanel />
    </Page>
  );
}
