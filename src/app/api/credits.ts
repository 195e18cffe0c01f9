import { queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { responses } from "../../contract/operations";
import { getJson } from "./client";

/** `GET /api/v2/credits`: the balance and plan of the proxy's key. */
export type Credits = z.infer<typeof responses.credits>;

export const CREDITS_QUERY_KEY = ["credits"] as const;

export function getCredits({ signal }: { signal?: AbortSignal } = {}): Promise<Credits> {
  return getJson("v2/credits", responses.credits, { signal });
}

export const creditsQueryOptions = () =>
  queryOptions({
    queryKey: CREDITS_QUERY_KEY,
    queryFn: ({ signal }) => getCredits({ signal }),
    staleTime: 30_000,
  });

/** Spends invalidate CREDITS_QUERY_KEY so the header shows the new balance. */
export function useCredits(options: { enabled?: boolean } = {}) {
  return useQuery({ ...creditsQueryOptions(), enabled: options.enabled ?? true });
}
