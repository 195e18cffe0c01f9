import { QueryClientProvider } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import type { ReactElement } from "react";
import { vi } from "vitest";
import { createQueryClient } from "../../../../src/app/query-client";
import type { GroupNode } from "../../../../src/contract/filter";

/** One request the app sent through the fake fetch. */
export interface SentRequest {
  path: string;
  /** The query, with its `?` (empty when none). */
  search: string;
  body: unknown;
  signal: AbortSignal;
  headers: Headers;
}

export type Handler = (request: SentRequest) => Response | Promise<Response>;

export function json(
  body: unknown,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "content-type": "application/json", ...init.headers },
  });
}

/** A promise settled by hand: a request that stays in flight until the test answers it. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Replaces global fetch with `handler` (and Request with one that resolves the app's relative
 * `/api/...` URLs against jsdom's location, as a browser does). A request whose signal aborts
 * rejects with an AbortError, as real fetch does.
 */
export function installFakeFetch(handler: Handler) {
  const sent: SentRequest[] = [];
  const BaseRequest = globalThis.Request;
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async (input: Request) => {
    const text = await input.clone().text();
    const request: SentRequest = {
      path: new URL(input.url).pathname,
      search: new URL(input.url).search,
      body: text === "" ? null : JSON.parse(text),
      signal: input.signal,
      headers: input.headers,
    };
    sent.push(request);
    if (request.signal.aborted) throw new DOMException("The operation was aborted.", "AbortError");
    return await new Promise<Response>((resolve, reject) => {
      request.signal.addEventListener("abort", () =>
        reject(new DOMException("The operation was aborted.", "AbortError")),
      );
      Promise.resolve(handler(request)).then(resolve, reject);
    });
  });
  return sent;
}

export function renderWithClient(ui: ReactElement) {
  const queryClient = createQueryClient();
  const utils = render(<QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>);
  return {
    ...utils,
    queryClient,
    rerender: (next: ReactElement) =>
      utils.rerender(<QueryClientProvider client={queryClient}>{next}</QueryClientProvider>),
  };
}

/**
 * Lets timers run `ms`, then lets what they released finish (a fake response travels through a few
 * promise hops and React Query's zero-delay notifications), all inside act.
 */
export async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  // Separate act scopes, so that React renders between the hops.
  for (let i = 0; i < 4; i += 1)
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
}

/** A tree of one condition: `JOB_LEVEL_PER eq value`. */
export function levelIs(value: string, id = "n1"): GroupNode {
  return {
    type: "group",
    op: "AND",
    negate: false,
    id: "root",
    children: [{ type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value, id }],
  };
}

/** The value of the first condition of a sent filter. */
export function sentValue(request: SentRequest | undefined): unknown {
  const body = request?.body as { filter?: { children?: { value?: unknown }[] } } | undefined;
  return body?.filter?.children?.[0]?.value;
}

/**
 * A proxy whose audience holds `members`: a Count or a View narrowed to ids (`... AND RBID_PAO in
 * [ids]`, as the selection's check asks) answers from them; anything else goes to `otherwise`.
 */
export function installAudienceOf(
  members: readonly string[],
  otherwise: Handler = () => json({}, { status: 404 }),
) {
  return installFakeFetch((request) => {
    const filter = (request.body as { filter?: GroupNode } | null)?.filter;
    const last = filter?.children.at(-1);
    if (last?.type !== "condition" || last.column !== "RBID_PAO") return otherwise(request);
    const inside = (last.valueList ?? []).filter((id) => members.includes(id));
    if (request.path === "/api/v2/contact/count") return json({ count: inside.length, mode: "exact" });
    return json({
      rows: inside.map((id) => ({ RBID_PAO: id })),
      columns: ["RBID_PAO"],
      columnLabels: { RBID_PAO: "Contact ID" },
      rowCount: inside.length,
      limit: 100,
    });
  });
}
