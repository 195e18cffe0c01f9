/**
 * Exclusions with a budget: a purchase whose filter would carry more than EXCLUSIONS_MAX
 * do-not-contact entries (and owned ids an export leaves out) is refused in words before anything
 * is sent (not an Enrich, a Preview, an export's estimate or start, nor the counts of a review);
 * within the budget it goes out as before. The list's upload limit is the contract's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCLUSIONS_MAX, SUPPRESSION_TEXT_MAX_BYTES } from "../../../src/contract/spending";
import { exclusionsRefusal, type Suppressed } from "../../../src/server/spend/suppression";
import { browser, fakeUpstream, json, type ProxyServer, startProxy } from "../../support/proxy-server";

const upstream = fakeUpstream(() => json({ detail: "not expected here" }, 500));
let proxy: ProxyServer;

beforeAll(async () => {
  proxy = await startProxy(upstream);
});
afterAll(async () => {
  await proxy?.close();
});

const FILTER = {
  type: "group",
  op: "AND",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
const domains = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `company${from + i}.example`).join("\n");

describe("exclusions with a budget", () => {
  it("the budget's edge: the lists' entries (and owned ids) up to EXCLUSIONS_MAX pass, one more is refused", () => {
    const lists = (n: number): Suppressed => ({
      byKind: {
        domain: Array.from({ length: n }, (_, i) => `d${i}.example`),
        companyId: [],
        personId: [],
        linkedin: [],
        email: [],
      },
      emailIds: [],
      emailsUnmatched: 0,
      emailDomains: [],
    });
    expect(exclusionsRefusal(lists(EXCLUSIONS_MAX))).toBeNull();
    expect(exclusionsRefusal(lists(EXCLUSIONS_MAX - 10), 10)).toBeNull();
    expect(exclusionsRefusal(lists(EXCLUSIONS_MAX - 10), 11)?.status).toBe(422);
    expect(exclusionsRefusal(lists(EXCLUSIONS_MAX + 1))?.status).toBe(422);
  });

  it("a list past the budget refuses every purchase in words, with nothing sent", async () => {
    const person = browser(proxy.url);
    const made = await person.post("/api/suppression", {
      name: "Everyone we met",
      text: domains(EXCLUSIONS_MAX + 1),
    });
    expect(made.status, made.text.slice(0, 300)).toBe(201);
    const before = upstream.seen.length;

    const key = () => ({ idempotencyKey: `exclusions-${Math.random().toString(36).slice(2)}` });
    const answers = [
      await person.post("/api/v2/contact/enrich", { personIds: ["pao_1"], reveal: "none" }, key()),
      await person.post("/api/v2/contact/preview", { filter: FILTER, limit: 5, reveal: "none" }, key()),
      await person.post("/api/v2/contact/export/estimate", { filter: FILTER, maxRows: 10, reveal: "none" }),
      await person.post(
        "/api/v2/contact/export",
        { filter: FILTER, maxRows: 10, reveal: "none", name: "x" },
        key(),
      ),
      await person.post("/api/purchases/review", { kind: "enrich", personIds: ["pao_1"], reveal: "none" }),
      await person.post("/api/purchases/review", {
        kind: "export",
        filter: FILTER,
        maxRows: 10,
        reveal: "none",
      }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(422);
      expect((answer.body as { detail: string }).detail).toMatch(
        /leave out 100,001 entries .* more than the 100,000 the proxy sends in one request\. Nothing was sent and nothing charged/,
      );
    }
    expect(upstream.seen.slice(before)).toEqual([]);
  }, 90_000); // 100,001 entries stored, then read by every purchase: tens of seconds on a busy machine

  it("the list's text has the contract's own limit: one byte more is a 422 in words, not a dropped connection", async () => {
    const person = browser(proxy.url);
    const tooLong = await person.post("/api/suppression", {
      name: "Too long",
      text: "a".repeat(SUPPRESSION_TEXT_MAX_BYTES + 1),
    });
    expect(tooLong.status).toBe(422);
  });
});
