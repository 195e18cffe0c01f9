import type { Options } from "ky";
import type { z } from "zod";
import { ANSWERS, type OperationAnswer } from "../../contract/operations";
import {
  type OperationBody,
  type OperationId,
  type OperationOf,
  type OperationParams,
  type OperationQuery,
  operationById,
} from "../../contract/routes";
import { api, requestJson, spendOptions } from "./client";

/**
 * The service's operations, called by id: `call("count", { body })`. The operation table
 * (src/contract/routes.ts) gives the method, the path and whether it spends; the contract's schemas
 * type the body, the path parameters and the query, and read the answer (ANSWERS). An operation that
 * spends will not compile without its Idempotency-Key (see lib/spend.ts for where keys come from).
 */

type Spends<Id extends OperationId> = OperationOf<Id> extends { spends: true } ? true : false;
type Multipart<Id extends OperationId> = OperationOf<Id> extends { bodyKind: "multipart" } ? true : false;

// biome-ignore lint/complexity/noBannedTypes: {} adds no field to the intersection.
type Nothing = {};

export type CallInput<Id extends OperationId> = { signal?: AbortSignal } & ([OperationBody<Id>] extends [
  undefined,
]
  ? Nothing
  : { body: OperationBody<Id> }) &
  ([OperationParams<Id>] extends [undefined] ? Nothing : { params: OperationParams<Id> }) &
  ([OperationQuery<Id>] extends [undefined] ? Nothing : { query?: OperationQuery<Id> }) &
  (Multipart<Id> extends true ? { form: FormData } : Nothing) &
  (Spends<Id> extends true ? { idempotencyKey: string } : Nothing);

interface LooseInput {
  signal?: AbortSignal;
  body?: unknown;
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  form?: FormData;
  idempotencyKey?: string;
}

/** The operation's path under `/api`, its `:params` filled in (and encoded). */
export function operationPath<Id extends OperationId>(
  id: Id,
  ...[params]: [OperationParams<Id>] extends [undefined] ? [] : [OperationParams<Id>]
): string {
  return fillPath(id, params as Record<string, string | number> | undefined);
}

function fillPath(id: OperationId, params: Record<string, string | number> = {}): string {
  const values = params;
  return operationById(id)
    .path.slice(1)
    .replace(/:(\w+)/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`operation ${id} needs the path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
}

/** Calls an operation and reads its answer, with the answer's headers (rate limits, budgets). */
export async function callWithHeaders<Id extends OperationId>(
  id: Id,
  input: CallInput<Id>,
): Promise<{ answer: OperationAnswer<Id>; headers: Headers }> {
  const op = operationById(id);
  const schema = (ANSWERS as Partial<Record<OperationId, z.ZodType>>)[id];
  if (!schema) throw new Error(`operation ${id} answers a file: download it from operationPath()`);
  const given = input as LooseInput;
  let options: Options = {
    method: op.method,
    // The browser gives a host six connections in all its tabs: what a person waits on (a count,
    // a sample) goes before the background reads (insights, a column's values) when they queue.
    priority: op.priority === "background" ? "low" : "high",
    ...(given.signal ? { signal: given.signal } : {}),
  };
  if (given.query) {
    const query = Object.entries(given.query).filter(
      (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
    );
    options.searchParams = Object.fromEntries(query);
  }
  if (op.bodyKind === "json" && given.body !== undefined) options.json = given.body;
  if (op.bodyKind === "multipart") options.body = given.form;
  if (op.spends) {
    if (!given.idempotencyKey) throw new Error(`operation ${id} spends: it needs an Idempotency-Key`);
    options = spendOptions(given.idempotencyKey, options);
  }
  const path = fillPath(id, given.params);
  let headers = new Headers();
  const answer = await requestJson(schema, async () => {
    const response = await api(path, options);
    headers = response.headers;
    return response;
  });
  return { answer: answer as OperationAnswer<Id>, headers };
}

/** Calls an operation and reads its answer. */
export async function call<Id extends OperationId>(
  id: Id,
  input: CallInput<Id>,
): Promise<OperationAnswer<Id>> {
  return (await callWithHeaders(id, input)).answer;
}
