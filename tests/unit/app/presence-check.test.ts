import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../src/app/api/api-error";
import { call } from "../../../src/app/api/operations";
import { checkPresence, type PresenceProgress, presenceChunks } from "../../../src/app/api/value-counts";
import type { GroupNode } from "../../../src/contract/filter";

vi.mock("../../../src/app/api/operations", () => ({ call: vi.fn() }));
const callMock = vi.mocked(call);

/** The values the dataset has, with their people; the mock answers a breakdown as the service does. */
const DATASET = new Map([
  ["acme.com", 12],
  ["beta.io", 3],
  ["gamma.de", 40],
]);

type Body = { filter: { children: { valueList?: string[] }[] } };
const listOf = (body: Body) => body.filter.children.at(-1)?.valueList ?? [];

function answerFromDataset(body: Body) {
  const buckets = listOf(body).flatMap((value) =>
    DATASET.has(value) ? [{ value, count: DATASET.get(value) ?? 0 }] : [],
  );
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  return { section: "breakdown", groupField: "DOMAIN_ORG", total, buckets, otherCount: 0 };
}

const rateLimited = (retryAfter: number) =>
  new ApiError({ kind: "rate-limited", status: 429, message: "Too many requests", retryAfter });

let client: QueryClient;
beforeEach(() => {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  callMock.mockReset();
});
afterEach(() => client.clear());

describe("checkPresence: which values of a long list carry people", () => {
  it("asks chunk by chunk, a few at once, and gives each present value its count", async () => {
    const values = ["acme.com", "nope.org", "beta.io", ...Array.from({ length: 57 }, (_, i) => `x${i}.com`)];
    let inFlight = 0;
    let most = 0;
    callMock.mockImplementation((async (_id: string, { body }: { body: Body }) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return answerFromDataset(body);
    }) as never);
    const seen: PresenceProgress[] = [];
    const counts = await checkPresence(client, "DOMAIN_ORG", presenceChunks(values, 10_000), {
      onProgress: (p) => seen.push(p),
    });
    expect(Object.fromEntries(counts)).toEqual({ "acme.com": 12, "beta.io": 3 });
    expect(callMock).toHaveBeenCalledTimes(3);
    expect(most).toBe(2);
    expect(seen.map((p) => p.checked)).toEqual([0, 20, 40, 60]);
    expect(seen.every((p) => p.total === 60 && p.waitSeconds === null)).toBe(true);
  });

  it("asks within an audience when one is given, and answers a repeated run from the cache", async () => {
    callMock.mockImplementation((async (_id: string, { body }: { body: Body }) =>
      answerFromDataset(body)) as never);
    const audience: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      children: [
        { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany", id: "x" },
      ],
    };
    const chunks = presenceChunks(["gamma.de"]);
    await checkPresence(client, "DOMAIN_ORG", chunks, { within: audience });
    const sent = callMock.mock.calls[0]?.[1] as { body: { filter: GroupNode } };
    expect(sent.body.filter.children).toHaveLength(2);
    expect(sent.body.filter.children[0]).toMatchObject({ type: "group", op: "AND" });
    await checkPresence(client, "DOMAIN_ORG", chunks, { within: audience });
    expect(callMock).toHaveBeenCalledTimes(1);
  });

  it("waits as long as a 429 says and tries the chunk again", async () => {
    let refused = 0;
    callMock.mockImplementation((async (_id: string, { body }: { body: Body }) => {
      if (refused < 2) {
        refused++;
        throw rateLimited(0);
      }
      return answerFromDataset(body);
    }) as never);
    const seen: PresenceProgress[] = [];
    const counts = await checkPresence(client, "DOMAIN_ORG", presenceChunks(["acme.com"]), {
      onProgress: (p) => seen.push(p),
    });
    expect(counts.get("acme.com")).toBe(12);
    expect(seen.filter((p) => p.waitSeconds !== null)).toHaveLength(2);
  });

  it("stops at any other failure, asking no further chunk", async () => {
    callMock.mockImplementation((async () => {
      throw new ApiError({ kind: "validation", status: 422, message: "bad" });
    }) as never);
    const values = Array.from({ length: 200 }, (_, i) => `x${i}.com`);
    await expect(checkPresence(client, "DOMAIN_ORG", presenceChunks(values, 10_000))).rejects.toThrow("bad");
    expect(callMock.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("stops when aborted, also while it waits for the rate limit", async () => {
    callMock.mockImplementation((async () => {
      throw rateLimited(60);
    }) as never);
    const controller = new AbortController();
    const run = checkPresence(client, "DOMAIN_ORG", presenceChunks(["acme.com"]), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.waitSeconds !== null) controller.abort(new DOMException("stopped", "AbortError"));
      },
    });
    await expect(run).rejects.toThrow("stopped");
    expect(callMock).toHaveBeenCalledTimes(1);
  });
});
