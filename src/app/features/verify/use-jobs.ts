import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { CREDITS_QUERY_KEY } from "../../api/credits";
import { useActiveJobs } from "./active-jobs";
import { jobHistory, type KnownJob, useJobHistory } from "./job-history";
import { isFinished, type JobStatus, jobLabel, STATUS_WORDS } from "./job-model";

export interface JobsView {
  jobs: readonly KnownJob[];
  /** Ids the service listed as running in its last answer (null before the first answer). */
  listedIds: ReadonlySet<string> | null;
  active: ReturnType<typeof useActiveJobs>;
  /** The last job that finished, in a sentence for the live region. */
  announcement: string;
}

/**
 * The jobs the screen shows: the ones this browser remembers plus the ones the service lists as
 * running (started elsewhere, or before the memory was cleared). The service's list is polled
 * every 5 to 10 s while it has anything; each answer is written into the memory. When a job
 * reaches a final status, the balance is asked again (a job spends as it runs) and the change is
 * announced.
 */
export function useVerifyJobs(): JobsView {
  const queryClient = useQueryClient();
  const active = useActiveJobs();
  const jobs = useJobHistory();
  const [announcement, setAnnouncement] = useState("");

  useEffect(() => {
    if (active.data) jobHistory.update(active.data);
  }, [active.data]);

  const listedIds = useMemo(
    () => (active.data ? new Set(active.data.map((job) => job.id)) : null),
    [active.data],
  );

  // Statuses seen before: a job that moves to a final status since then has just finished.
  const previous = useRef<Map<string, JobStatus> | null>(null);
  useEffect(() => {
    const before = previous.current;
    previous.current = new Map(jobs.map((job) => [job.id, job.status]));
    if (!before) return;
    const finished = jobs.filter((job) => {
      const was = before.get(job.id);
      return was !== undefined && !isFinished(was) && isFinished(job.status);
    });
    if (finished.length === 0) return;
    void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
    setAnnouncement(
      finished
        .map((job) => `Job ${jobLabel(job.id)} (${job.filename}): ${STATUS_WORDS[job.status].toLowerCase()}.`)
        .join(" "),
    );
  }, [jobs, queryClient]);

  return { jobs, listedIds, active, announcement };
}
