import { QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api/api-error";
import { SESSION_QUERY_KEY } from "./api/session";

/** Most tries of a read in all (the first one included). */
const MAX_READ_ATTEMPTS = 3;

/**
 * The app's one QueryClient. Queries are reads (GETs, and the POSTs that only read, such as Count):
 * they are retried, with backoff, only when the failure was transient (no answer, a timeout, a
 * 5xx): a 4xx will answer the same again. After the last try, such a read on screen is asked again
 * as soon as the server is back (api/recovery.ts). Mutations are never retried here: spends carry an
 * Idempotency-Key and are retried on purpose by the screen that owns them. A read that spends a
 * budget (View) sets `retry: false` itself.
 */
export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // A session that ended (idle timeout, sign-out in another tab): ask who is here, which
        // shows the sign-in page. The session query itself must not trigger this.
        if (
          error instanceof ApiError &&
          error.kind === "unauthenticated" &&
          query.queryKey[0] !== SESSION_QUERY_KEY[0]
        )
          void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      },
    }),
    defaultOptions: {
      queries: {
        retry: (failures, error) =>
          failures + 1 < MAX_READ_ATTEMPTS && error instanceof ApiError && error.transient,
        retryDelay: (attempt) => Math.min(1000 * 2 ** attempt, 8000),
        staleTime: 30_000,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
  return queryClient;
}
