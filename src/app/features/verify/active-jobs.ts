import { queryOptions, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import type { Job } from "./job-model";
import { ChangeTracker, pollInterval } from "./polling";

/**
 * The jobs the service is working on: `GET /api/v2/jobs`, or the documented `GET
 * /api/v1/queued-process` where v2 is absent. Both list only QUEUED and PROCESSING jobs; finished
 * ones are remembered by the screen (job-history.ts).
 */
export const ACTIVE_JOBS_QUERY_KEY = ["verify", "jobs"] as const;

export async function fetchActiveJobs(signal?: AbortSignal): Promise<Job[]> {
  const { value } = await preferV2<Job[]>("jobs", {
    v2: async () =>
      (await call("jobsV2", { ...(signal ? { signal } : {}) })).processes.map((p) => ({
        id: String(p.process_id),
        filename: p.filename,
        status: p.status,
        message: p.message,
        lastUpdated: p.last_updated,
        generation: "v2" as const,
      })),
    v1: async () =>
      (await call("queuedV1", { ...(signal ? { signal } : {}) })).processes.map((p) => ({
        id: p.process_id,
        filename: p.filename,
        status: p.status,
        message: p.message,
        lastUpdated: p.last_updated,
        generation: "v1" as const,
      })),
  });
  return value;
}

export function activeJobsQueryOptions() {
  return queryOptions({
    queryKey: ACTIVE_JOBS_QUERY_KEY,
    queryFn: ({ signal }) => fetchActiveJobs(signal),
    staleTime: 0,
  });
}

/** Polled every 5 to 10 s while the service lists a job; still once nothing runs. */
export function useActiveJobs() {
  const [tracker] = useState(() => new ChangeTracker());
  return useQuery({
    ...activeJobsQueryOptions(),
    refetchInterval: (query) =>
      pollInterval(
        (query.state.data?.length ?? 0) > 0,
        tracker.observe(query.state.dataUpdatedAt, query.state.data),
      ),
  });
}
