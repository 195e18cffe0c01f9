import { queryOptions, useQuery } from "@tanstack/react-query";
import { z } from "zod";
import { PLANS } from "../../contract/inferred";
import { roleSchema } from "../../contract/team";
import { ApiError } from "./api-error";
import { getJson } from "./client";

/**
 * `GET /api/session`: the proxy's own answer (not an operation of the service), so its schema lives
 * here. `user` is null when the proxy serves one local user (who is the admin); `role` is what the
 * person may do (lib/roles.ts); `keyLast4` is all the browser ever learns of the key.
 */
export const sessionSchema = z.object({
  mode: z.enum(["sandbox", "live"]),
  plan: z.enum(PLANS).nullable(),
  user: z.string().nullable(),
  role: roleSchema,
  keyLast4: z.string().max(4),
});
export type Session = z.infer<typeof sessionSchema>;

export const SESSION_QUERY_KEY = ["session"] as const;

export function getSession({ signal }: { signal?: AbortSignal } = {}): Promise<Session> {
  return getJson("session", sessionSchema, { signal });
}

export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: SESSION_QUERY_KEY,
    queryFn: ({ signal }) => getSession({ signal }),
    staleTime: 60_000,
  });

export function useSession() {
  return useQuery(sessionQueryOptions());
}

/**
 * Whether a signed-in person's session ended under them: the session was read with a person, and
 * is now refused (a 401: an admin removed them or changed their role, or it timed out). A query
 * that fails on a refetch keeps its last data, which is how this knows someone was signed in. A
 * sign-out on purpose resets the session query first (api/auth.ts), so it is not one.
 */
export function sessionEnded(session: { error: unknown; data: Session | undefined }): boolean {
  return (
    session.error instanceof ApiError &&
    session.error.kind === "unauthenticated" &&
    session.data !== undefined &&
    session.data.user !== null
  );
}
