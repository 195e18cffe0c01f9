import { queryOptions, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import { isActive, type Job } from "./job-model";
import { ChangeTracker, pollInterval } from "./polling";

/**
 * One job's status: `GET /api/v2/jobs/{id}`, or the documented `GET
 * /api/v1/batch-process-email-status?process_id=` where v2 is absent. Asked for jobs the active
 * list no longer shows (they finished, or are cancelling), until they reach a final status.
 */
export const jobStatusQueryKey = (id: string) => ["verify", "job", id] as const;

/** v2 ids are integers: a v1 id that is not one can only be asked of v1. */
const isV2Id = (id: string) => /^\d{1,15}$/.test(id);

export async function fetchJobStatus(id: string, signal?: AbortSignal): Promise<Job> {
  const { value } = await preferV2<Job>("jobStatus", {
    ...(isV2Id(id)
      ? {
          v2: async () => {
            const s = await call("jobStatusV2", {
              params: { process_id: id },
              ...(signal ? { signal } : {}),
            });
            return {
              id: String(s.process_id),
              filename: s.filename,
              status: s.current_status,
              message: s.message,
              lastUpdated: null,
              generation: "v2" as const,
            };
          },
        }
      : {}),
    v1: async () => {
      const s = await call("batchStatusV1Get", { query: { process_id: id }, ...(signal ? { signal } : {}) });
      return {
        id: s.process_id,
        filename: s.filename,
        status: s.current_status,
        message: s.message,
        lastUpdated: null,
        generation: "v1" as const,
      };
    },
  });
  return value;
}

export function jobStatusQueryOptions(id: string) {
  return queryOptions({
    queryKey: jobStatusQueryKey(id),
    queryFn: ({ signal }) => fetchJobStatus(id, signal),
    staleTime: 0,
  });
}

/** Polled every 5 to 10 s until the job's status is final. */
export function useJobStatus(id: string, enabled: boolean) {
  const [tracker] = useState(() => new ChangeTracker());
  return useQuery({
    ...jobStatusQueryOptions(id),
    enabled,
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return pollInterval(
        status !== undefined && isActive(status),
        tracker.observe(query.state.dataUpdatedAt, query.state.data),
      );
    },
  });
}
