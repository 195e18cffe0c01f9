import { queryOptions, useQuery } from "@tanstack/react-query";
import { z } from "zod";
import { getJson } from "../../api/client";

/**
 * `GET /api/limits`: the proxy's own record (not an operation of the service) of the day's View
 * budget as the last View answer through it said (`X-FreePreview-Remaining`), forgotten at UTC
 * midnight; and the pace the proxy keeps to (its rate shaper). Asking it spends nothing: no View
 * budget, no credits, not even a request of the service's rate limit.
 */
export const limitsSchema = z.object({
  viewBudget: z
    .object({
      remaining: z.number().int().nonnegative(),
      seenAt: z.iso.datetime(),
      resetAt: z.iso.datetime(),
    })
    .nullable(),
  /** Calls a minute the proxy lets through to the service (it queues the rest). */
  proxyPerMinute: z.number().int().positive(),
});
export type Limits = z.infer<typeof limitsSchema>;
export type ViewBudget = NonNullable<Limits["viewBudget"]>;

export const LIMITS_QUERY_KEY = ["account", "limits"] as const;

export function getLimits({ signal }: { signal?: AbortSignal } = {}): Promise<Limits> {
  return getJson("limits", limitsSchema, { signal });
}

export const limitsQueryOptions = () =>
  queryOptions({
    queryKey: LIMITS_QUERY_KEY,
    queryFn: ({ signal }) => getLimits({ signal }),
    // Free to ask: always fresh when the page is shown or the window regains focus.
    staleTime: 0,
  });

export function useLimits() {
  return useQuery(limitsQueryOptions());
}
