import {
  infiniteQueryOptions,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";

import {
  type SuppressionKind,
  suppressionEntries,
  suppressionImport,
  suppressionLists,
} from "../../../../contract/spending";
import { isAbortError, toApiError } from "../../../api/api-error";
import { api, getJson, requestJson } from "../../../api/client";

/**
 * The team's do-not-contact lists (`/api/suppression`): everyone reads them; buyers and admins
 * create, add to and delete them (the proxy enforces it). Bodies are the contract's
 * `suppressionCreate` / `suppressionAdd`; answers are read with its schemas.
 */
export const SUPPRESSION_QUERY_KEY = ["suppression"] as const;

export const listsQueryOptions = () =>
  queryOptions({
    queryKey: [...SUPPRESSION_QUERY_KEY, "lists"],
    queryFn: ({ signal }) => getJson("suppression", suppressionLists, { signal }),
  });

export function useSuppressionLists() {
  return useQuery(listsQueryOptions());
}

/** A page of a list's entries (all kinds, or one), then the next page from `next`. */
export const entriesQueryOptions = (listId: string, kind: SuppressionKind | "") =>
  infiniteQueryOptions({
    queryKey: [...SUPPRESSION_QUERY_KEY, "entries", listId, kind],
    queryFn: ({ pageParam, signal }) => {
      const searchParams: Record<string, string> = {};
      if (kind) searchParams.kind = kind;
      if (pageParam) searchParams.after = pageParam;
      return getJson(`suppression/${encodeURIComponent(listId)}/entries`, suppressionEntries, {
        searchParams,
        signal,
      });
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });

export function useSuppressionEntries(listId: string, kind: SuppressionKind | "") {
  return useInfiniteQuery(entriesQueryOptions(listId, kind));
}

/** Lists may be 20 MB of text: a minute for the upload and the proxy's reading. */
const IMPORT_TIMEOUT_MS = 60_000;

export const createList = (body: { name: string; text: string }) =>
  requestJson(suppressionImport, () => api.post("suppression", { json: body, timeout: IMPORT_TIMEOUT_MS }));

export const addEntries = (listId: string, text: string) =>
  requestJson(suppressionImport, () =>
    api.post(`suppression/${encodeURIComponent(listId)}/entries`, {
      json: { text },
      timeout: IMPORT_TIMEOUT_MS,
    }),
  );

/** DELETE answers with nothing to read (204) or a small JSON body: either way, gone. */
export async function deleteList(listId: string): Promise<void> {
  try {
    await api.delete(`suppression/${encodeURIComponent(listId)}`);
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw await toApiError(error);
  }
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: SUPPRESSION_QUERY_KEY });
}

export function useCreateList() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: createList, onSuccess: invalidate });
}

export function useAddEntries() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ listId, text }: { listId: string; text: string }) => addEntries(listId, text),
    onSuccess: invalidate,
  });
}

export function useDeleteList() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: deleteList, onSuccess: invalidate });
}

export const MAX_TEXT_BYTES = 20 * 1024 * 1024;
