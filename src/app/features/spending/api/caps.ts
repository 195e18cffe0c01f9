import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { capsSchema, type capsUpdate } from "../../../../contract/spending";
import { api, getJson, requestJson } from "../../../api/client";
import { SPENDING_QUERY_KEY } from "../../../api/spending";

/** Monthly caps and approval thresholds (`GET /api/spending/caps`, everyone; `PUT`, admins). */
export const CAPS_QUERY_KEY = [...SPENDING_QUERY_KEY, "caps"] as const;
export type CapsUpdate = z.input<typeof capsUpdate>;

export const capsQueryOptions = () =>
  queryOptions({
    queryKey: CAPS_QUERY_KEY,
    queryFn: ({ signal }) => getJson("spending/caps", capsSchema, { signal }),
  });

export function useCaps() {
  return useQuery(capsQueryOptions());
}

export const saveCaps = (body: CapsUpdate) =>
  requestJson(capsSchema, () => api.put("spending/caps", { json: body }));

export function useSaveCaps() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveCaps,
    onSuccess: (caps) => {
      queryClient.setQueryData(CAPS_QUERY_KEY, caps);
      // The month's spend per person shows the caps too.
      void queryClient.invalidateQueries({ queryKey: SPENDING_QUERY_KEY });
    },
  });
}
