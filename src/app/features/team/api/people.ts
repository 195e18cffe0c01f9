import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import {
  type addPersonBody,
  type changePersonBody,
  peopleAnswer,
  personSchema,
} from "../../../../contract/team";
import { ApiError } from "../../../api/api-error";
import { api, getJson, requestJson } from "../../../api/client";
import { SESSION_QUERY_KEY } from "../../../api/session";
import { AUDIT_QUERY_KEY } from "./audit";

/**
 * The team's people (`/api/team/people`, admins only): list, add, change a role or a password,
 * remove. Every change is written to the audit list, so that is asked again after each; a change
 * to oneself (or the first person, in local mode) changes the session, so that is asked again too.
 */
export const PEOPLE_QUERY_KEY = ["team", "people"] as const;

export type AddPerson = z.input<typeof addPersonBody>;
export type ChangePerson = z.input<typeof changePersonBody>;

export const peopleQueryOptions = () =>
  queryOptions({
    queryKey: PEOPLE_QUERY_KEY,
    queryFn: ({ signal }) => getJson("team/people", peopleAnswer, { signal }),
  });

export function usePeople() {
  return useQuery(peopleQueryOptions());
}

const path = (name: string) => `team/people/${encodeURIComponent(name)}`;

export const addPerson = (body: AddPerson) =>
  requestJson(personSchema, () => api.post("team/people", { json: body }));
export const changePerson = (name: string, body: ChangePerson) =>
  requestJson(personSchema, () => api.put(path(name), { json: body }));
export const removePerson = (name: string) =>
  requestJson(z.object({ removed: z.literal(true) }), () => api.delete(path(name)));

/** After any change: the list and the audit list are stale; the session too when it touched us. */
function useAfterChange() {
  const queryClient = useQueryClient();
  return {
    settled: (touchesSession: boolean) => {
      void queryClient.invalidateQueries({ queryKey: PEOPLE_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: AUDIT_QUERY_KEY });
      if (touchesSession) void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
    },
    failed: (error: unknown) => {
      // The session ended meanwhile (a role changed elsewhere): asking who is here shows the sign-in.
      if (error instanceof ApiError && error.kind === "unauthenticated")
        void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
    },
  };
}

/** `me` is the signed-in person (null in local mode, where the first person ends local mode). */
export function useAddPerson(me: string | null) {
  const after = useAfterChange();
  return useMutation({
    mutationFn: addPerson,
    onSuccess: () => after.settled(me === null),
    onError: after.failed,
  });
}

export function useChangePerson(me: string | null) {
  const after = useAfterChange();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: ChangePerson }) => changePerson(name, body),
    onSuccess: (_person, { name }) => after.settled(name === me),
    onError: after.failed,
  });
}

export function useRemovePerson(me: string | null) {
  const after = useAfterChange();
  return useMutation({
    mutationFn: removePerson,
    onSuccess: (_answer, name) => after.settled(name === me),
    onError: after.failed,
  });
}
