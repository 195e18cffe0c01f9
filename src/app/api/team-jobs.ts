import { queryOptions, useQuery } from "@tanstack/react-query";
import { type TeamJob, teamJobsAnswer } from "../../contract/team";
import { getJson } from "./client";

/**
 * `GET /api/team/jobs?kind=export|verification`: the jobs started through this proxy and who
 * started each. The service itself does not know people, so the export history and the
 * verification jobs join this by job id to say who made each file. In the core because two
 * features read it (checkout and verify).
 */
export type TeamJobKind = TeamJob["kind"];

export const teamJobsQueryKey = (kind: TeamJobKind) => ["team", "jobs", kind] as const;

export function getTeamJobs(kind: TeamJobKind, { signal }: { signal?: AbortSignal } = {}) {
  return getJson("team/jobs", teamJobsAnswer, { searchParams: { kind }, signal });
}

export const teamJobsQueryOptions = (kind: TeamJobKind) =>
  queryOptions({
    queryKey: teamJobsQueryKey(kind),
    queryFn: ({ signal }) => getTeamJobs(kind, { signal }),
    select: (answer) => new Map(answer.jobs.map((job) => [job.jobId, job.person])),
    staleTime: 15_000,
  });

/**
 * Who started each job of `kind`, by job id. A job not in the map was started elsewhere (another
 * tool using the same key) or before people were recorded.
 */
export function useJobStarters(kind: TeamJobKind) {
  return useQuery(teamJobsQueryOptions(kind));
}
