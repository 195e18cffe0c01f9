import { useMutation, useQueryClient } from "@tanstack/react-query";
import { preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import { ACTIVE_JOBS_QUERY_KEY } from "./active-jobs";
import type { Job } from "./job-model";
import { jobStatusQueryKey } from "./job-status";

/**
 * Cancel a queued or running job: `POST /api/v2/jobs/{id}/cancel`, or the documented `POST
 * /api/v1/cancel-process { process_id }` where v2 is absent. The job answers CANCELLING, then
 * CANCELLED once the service has stopped; what was verified so far stays charged and downloadable.
 */
export async function cancelJob(id: string): Promise<Job> {
  const { value } = await preferV2<Job>("jobCancel", {
    ...(/^\d{1,15}$/.test(id)
      ? {
          v2: async () => {
            const s = await call("jobCancelV2", { params: { process_id: id } });
            return {
              id: String(s.process_id),
              filename: s.filename,
              status: s.current_status,
              message: s.message,
              lastUpdated: new Date().toISOString(),
              generation: "v2" as const,
            };
          },
        }
      : {}),
    v1: async () => {
      const s = await call("cancelV1", { body: { process_id: id } });
      return {
        id: s.process_id,
        filename: s.filename,
        status: s.current_status,
        message: s.message,
        lastUpdated: new Date().toISOString(),
        generation: "v1" as const,
      };
    },
  });
  return value;
}

export function useCancelJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => cancelJob(id),
    onSuccess: (job) => queryClient.setQueryData(jobStatusQueryKey(job.id), job),
    // Whatever happened (cancelled, or "already finished"), ask again.
    onSettled: (_job, _error, id) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ACTIVE_JOBS_QUERY_KEY }),
        queryClient.invalidateQueries({ queryKey: jobStatusQueryKey(id) }),
      ]),
  });
}
