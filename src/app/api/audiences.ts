import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Options } from "ky";
import { z } from "zod";
import {
  type Audience,
  audienceSchema,
  audiencesAnswer,
  audienceVersionsAnswer,
  type createAudienceBody,
  openAudienceAnswer,
  type openAudienceBody,
  type restoreAudienceBody,
  type updateAudienceBody,
  versionConflictAnswer,
} from "../../contract/team";
import { ApiError, readableIssue } from "./api-error";
import { api, getJson, requestJson } from "./client";

/**
 * The proxy's saved audiences (`/api/audiences`, src/contract/team.ts): what the person may see,
 * each with its owner, who sees it, its last count and a version per save. Every answer is read with
 * the contract's schemas; PUT and DELETE go through the same `api` (so they carry `x-csrf`). Writes
 * are never retried by themselves (query-client.ts); each one invalidates the list.
 */

export type CreateAudienceBody = z.input<typeof createAudienceBody>;
export type UpdateAudienceBody = z.input<typeof updateAudienceBody>;
export type RestoreAudienceBody = z.input<typeof restoreAudienceBody>;

export const AUDIENCES_QUERY_KEY = ["audiences"] as const;

/** Where an id goes in a path: the contract's ids are URL-safe, but nothing typed reaches a path raw. */
const path = (id: string, rest = "") => `audiences/${encodeURIComponent(id)}${rest}`;

export function listAudiences({ signal }: { signal?: AbortSignal } = {}) {
  return getJson("audiences", audiencesAnswer, { signal }).then((answer) => answer.audiences);
}

export function getAudience(id: string, { signal }: { signal?: AbortSignal } = {}) {
  return getJson(path(id), audienceSchema, { signal });
}

export function createAudience(body: CreateAudienceBody, options: Options = {}) {
  return requestJson(audienceSchema, () => api.post("audiences", { ...options, json: body }));
}

/** `PUT`: the fields to change and the version they replace; a newer version answers 409 (see `versionConflictOf`). */
export function updateAudience(id: string, body: UpdateAudienceBody) {
  return requestJson(audienceSchema, () => api.put(path(id), { json: body }));
}

export function deleteAudience(id: string) {
  return requestJson(z.object({ deleted: z.literal(true) }), () => api.delete(path(id)));
}

export function undeleteAudience(id: string) {
  return requestJson(audienceSchema, () => api.post(path(id, "/undelete")));
}

export function listAudienceVersions(id: string, { signal }: { signal?: AbortSignal } = {}) {
  return getJson(path(id, "/versions"), audienceVersionsAnswer, { signal }).then((answer) => answer.versions);
}

/** Brings version `restore` back as a new version on top of `version` (409 when that is not the latest). */
export function restoreAudienceVersion(id: string, body: RestoreAudienceBody) {
  return requestJson(audienceSchema, () => api.post(path(id, "/restore"), { json: body }));
}

/** What the person last had open (as the server remembers it for them), or null. */
export function getOpenAudience({ signal }: { signal?: AbortSignal } = {}) {
  return getJson("audiences/open", openAudienceAnswer, { signal, cache: "no-store" }).then((a) => a.open);
}

/**
 * Remembers the audience open in this tab as the person's open one. `keepalive` lets the last one
 * out as the page goes away.
 */
export function rememberOpenAudience(body: z.input<typeof openAudienceBody>, { keepalive = false } = {}) {
  return requestJson(z.object({ remembered: z.literal(true) }), () =>
    api.put("audiences/open", { json: body, keepalive }),
  );
}

export function forgetOpenAudience({ keepalive = false } = {}) {
  return requestJson(z.object({ forgotten: z.literal(true) }), () =>
    api.delete("audiences/open", { keepalive }),
  );
}

/** The latest version held by a 409 VERSION_CONFLICT, or null for any other failure. */
export function versionConflictOf(error: unknown): Audience | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const parsed = versionConflictAnswer.safeParse(error.body);
  return parsed.success ? parsed.data.current : null;
}

/** True for the 404 of an audience that does not exist, was deleted, or is someone else's private one. */
export function isMissingAudience(error: unknown): boolean {
  return error instanceof ApiError && error.kind === "not-found";
}

/**
 * A failed audience call in plain words: the proxy's own sentence, and for a 422 the reason alone
 * (the field is the form's own: no `body › filter › …` path is shown to a person).
 */
export function audienceErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    const [first] = error.issues;
    if (error.kind === "validation" && first) return `The server refused it: ${readableIssue(first.msg)}`;
    return error.message;
  }
  if (error instanceof Error && error.message) return `Something went wrong: ${error.message}`;
  return "Something went wrong.";
}

// ---- Queries ----

export const audiencesQueryOptions = () =>
  queryOptions({
    queryKey: AUDIENCES_QUERY_KEY,
    queryFn: ({ signal }) => listAudiences({ signal }),
    staleTime: 15_000,
    // Teammates save too: the list catches up by itself (and on focus, as every query does).
    refetchInterval: 30_000,
  });

export const audienceVersionsQueryOptions = (id: string) =>
  queryOptions({
    queryKey: [...AUDIENCES_QUERY_KEY, id, "versions"] as const,
    queryFn: ({ signal }) => listAudienceVersions(id, { signal }),
    staleTime: 5_000,
  });

export function useAudiences() {
  return useQuery(audiencesQueryOptions());
}

export function useAudienceVersions(id: string, enabled = true) {
  return useQuery({ ...audienceVersionsQueryOptions(id), enabled });
}

// ---- Writes: each refreshes the list (and the versions under it) ----

function useInvalidatingMutation<V>(run: (variables: V) => Promise<Audience>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSettled: () => queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY }),
  });
}

export function useCreateAudience() {
  return useInvalidatingMutation((body: CreateAudienceBody) => createAudience(body));
}

export function useUpdateAudience() {
  return useInvalidatingMutation(({ id, body }: { id: string; body: UpdateAudienceBody }) =>
    updateAudience(id, body),
  );
}

export function useRestoreAudienceVersion() {
  return useInvalidatingMutation(({ id, body }: { id: string; body: RestoreAudienceBody }) =>
    restoreAudienceVersion(id, body),
  );
}

export function useUndeleteAudience() {
  return useInvalidatingMutation((id: string) => undeleteAudience(id));
}

export function useDeleteAudience() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteAudience(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY }),
  });
}
