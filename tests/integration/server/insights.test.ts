/**
 * Insights through the proxy over the real sandbox: each section, the breakdown adding up to the
 * total, a value's bucket equal to the count of the audience narrowed to it (what the Builder's
 * "click a bar" promises), readable 422s for masked columns, the cache by canonical filter, no cost
 * on any plan, and the background priority behind the count.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiErrorFromAnswer } from "../../../src/app/api/api-error";
import { OPERATIONS } from "../../../src/contract/routes";
import type { Sandbox } from "../../../src/sandbox/app";
import type { Upstream } from "../../../src/server/upstream/upstream";
import {
  browser,
  json,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

type Bucket = { value: string | number | null; count: number };
type Breakdown = {
  section: "breakdown";
  groupField: string;
  total: number;
  buckets: Bucket[];
  otherCount: number;
};
type Summary = {
  section: "summary";
  total: number;
  withEmail: number;
  withMobile: number;
  companies: number;
};
type Fields = { section: "fields"; fields: Record<string, Bucket[]> };
type ValidationBody = { detail: { loc: (string | number)[]; msg: string; type: string }[] };

const started: ProxyServer[] = [];
let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await sandbox?.close();
});

async function proxyOver(upstream: Upstream, env: Record<string, string> = {}) {
  const server = await startProxy(upstream, { env: { CACHE_TTL_MS: "60000", ...env } });
  started.push(server);
  return { server, api: browser(server.url) };
}

const condition = (column: string, operator: string, extra: Record<string, unknown> = {}) => ({
  type: "condition",
  column,
  operator,
  ...extra,
});
const and = (...children: unknown[]) => ({ type: "group", op: "AND", negate: false, children });
const europe = and(condition("CONTINENT_PER", "eq", { value: "Europe", id: "c1" }));

describe("insights over the sandbox", () => {
  it("summary: total equals the count, with email, mobile and companies within it", async () => {
    const { api } = await proxyOver(sandbox.fetch);
    for (const filter of [null, europe]) {
      const summary = await api.post<Summary>("/api/v2/contact/insights", { section: "summary", filter });
      expect(summary.status).toBe(200);
      const count = await api.post<{ count: number }>("/api/v2/contact/count", { filter });
      expect(summary.body.section).toBe("summary");
      expect(summary.body.total).toBe(count.body.count);
      expect(summary.body.total).toBeGreaterThan(0);
      expect(summary.body.withEmail).toBeGreaterThan(0);
      expect(summary.body.withEmail).toBeLessThanOrEqual(summary.body.total);
      expect(summary.body.withMobile).toBeLessThanOrEqual(summary.body.total);
      expect(summary.body.companies).toBeGreaterThan(0);
      expect(summary.body.companies).toBeLessThanOrEqual(summary.body.total);
    }
    const everyone = await api.post<Summary>("/api/v2/contact/insights", {
      section: "summary",
      filter: null,
    });
    expect(everyone.body.total).toBe(50_000);
  });

  it("breakdown: at most 20 buckets, largest first, buckets + otherCount = total = count", async () => {
    const { api } = await proxyOver(sandbox.fetch);
    for (const groupField of [
      "COUNTRY_NAME_PER",
      "JOB_LEVEL_PER",
      "CITY_PER",
      "EMPLOYEE_COUNT_RANGE_ORG",
      "FOUNDED_ORG",
    ]) {
      const answer = await api.post<Breakdown>("/api/v2/contact/insights", {
        section: "breakdown",
        filter: europe,
        groupField,
      });
      expect(answer.status, groupField).toBe(200);
      const { buckets, otherCount, total } = answer.body;
      expect(answer.body.groupField).toBe(groupField);
      expect(buckets.length).toBeGreaterThan(0);
      expect(buckets.length).toBeLessThanOrEqual(20);
      expect(buckets.reduce((sum, b) => sum + b.count, 0) + otherCount).toBe(total);
      expect(otherCount).toBeGreaterThanOrEqual(0);
      const counts = buckets.map((b) => b.count);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      const count = await api.post<{ count: number }>("/api/v2/contact/count", { filter: europe });
      expect(total).toBe(count.body.count);
    }
    // Many cities: the top 20 leave some out, and they are counted in otherCount.
    const cities = await api.post<Breakdown>("/api/v2/contact/insights", {
      section: "breakdown",
      filter: null,
      groupField: "CITY_PER",
    });
    expect(cities.body.buckets).toHaveLength(20);
    expect(cities.body.otherCount).toBeGreaterThan(0);
  });

  it("a bucket's count is the count of the audience narrowed to its value (eq, or isNull for null)", async () => {
    const { api } = await proxyOver(sandbox.fetch);
    for (const groupField of ["JOB_LEVEL_PER", "EMPLOYEE_COUNT_RANGE_ORG", "FOUNDED_ORG", "STATE_NAME_PER"]) {
      const answer = await api.post<Breakdown>("/api/v2/contact/insights", {
        section: "breakdown",
        filter: europe,
        groupField,
      });
      for (const bucket of answer.body.buckets.slice(0, 3)) {
        const narrowed = and(
          europe,
          bucket.value === null
            ? condition(groupField, "isNull")
            : condition(groupField, "eq", { value: bucket.value }),
        );
        const count = await api.post<{ count: number }>("/api/v2/contact/count", { filter: narrowed });
        expect(count.status).toBe(200);
        expect(count.body.count, `${groupField} = ${bucket.value}`).toBe(bucket.count);
      }
    }
  });

  it("fields: the top 10 values of each field asked for", async () => {
    const { api } = await proxyOver(sandbox.fetch);
    const fields = [
      "JOB_FUNCTION_PER",
      "INDUSTRY_LINKEDIN_ORG",
      "EMPLOYEE_COUNT_RANGE_ORG",
      "COUNTRY_NAME_PER",
    ];
    const answer = await api.post<Fields>("/api/v2/contact/insights", {
      section: "fields",
      filter: europe,
      fields,
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.fields).sort()).toEqual([...fields].sort());
    const summary = await api.post<Summary>("/api/v2/contact/insights", {
      section: "summary",
      filter: europe,
    });
    for (const name of fields) {
      const values = answer.body.fields[name]!;
      expect(values.length).toBeGreaterThan(0);
      expect(values.length).toBeLessThanOrEqual(10);
      expect(values.reduce((sum, v) => sum + v.count, 0)).toBeLessThanOrEqual(summary.body.total);
    }
    // The same top values as a breakdown of that column.
    const breakdown = await api.post<Breakdown>("/api/v2/contact/insights", {
      section: "breakdown",
      filter: europe,
      groupField: "COUNTRY_NAME_PER",
    });
    expect(answer.body.fields.COUNTRY_NAME_PER).toEqual(breakdown.body.buckets.slice(0, 10));
  });

  it("refuses a masked column with a 422 a person can read, before it reaches the sandbox", async () => {
    const upstream = recording(sandbox.fetch);
    const { api } = await proxyOver(upstream);
    const masked = await api.post<ValidationBody>("/api/v2/contact/insights", {
      section: "breakdown",
      filter: null,
      groupField: "EMAIL_ADDRESS_PER",
    });
    expect(masked.status).toBe(422);
    expect(masked.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "groupField"],
        type: "value_error",
        msg: "Value error, EMAIL_ADDRESS_PER is masked and cannot be grouped",
      }),
    ]);
    // What the app shows: the field and the reason.
    const error = apiErrorFromAnswer(masked.status, masked.body, masked.headers);
    expect(error.kind).toBe("validation");
    expect(error.message).toMatch(
      /^Some of what was sent is not valid: groupField: .*EMAIL_ADDRESS_PER is masked and cannot be grouped\.$/,
    );

    const inFields = await api.post<ValidationBody>("/api/v2/contact/insights", {
      section: "fields",
      filter: null,
      fields: ["COUNTRY_NAME_PER", "CELLPHONE_PER"],
    });
    expect(inFields.status).toBe(422);
    expect(inFields.body.detail[0]).toMatchObject({
      loc: ["body", "fields", 1],
      msg: expect.stringContaining("CELLPHONE_PER is masked and cannot be grouped"),
    });

    const missing = await api.post<ValidationBody>("/api/v2/contact/insights", {
      section: "breakdown",
      filter: null,
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "groupField"], type: "missing" });

    const tooMany = await api.post<ValidationBody>("/api/v2/contact/insights", {
      section: "fields",
      filter: null,
      fields: Array.from({ length: 11 }, () => "COUNTRY_NAME_PER"),
    });
    expect(tooMany.status).toBe(422);
    expect(upstream.seen.filter((s) => s.path.endsWith("/insights"))).toHaveLength(0);
  });

  it("is cached by canonical filter: other ids and key order reach the sandbox once per section", async () => {
    const upstream = recording(sandbox.fetch);
    const { api, server } = await proxyOver(upstream);
    const sameAudience = {
      children: [
        { value: "Europe", operator: "eq", column: "CONTINENT_PER", type: "condition", id: "other" },
      ],
      type: "group",
    };
    const first = await api.post("/api/v2/contact/insights", {
      section: "breakdown",
      filter: europe,
      groupField: "JOB_LEVEL_PER",
    });
    const again = await api.post("/api/v2/contact/insights", {
      groupField: "JOB_LEVEL_PER",
      filter: sameAudience,
      section: "breakdown",
    });
    expect(again.text).toBe(first.text);
    expect(upstream.seen.filter((s) => s.path.endsWith("/insights"))).toHaveLength(1);
    expect(server.proxy.stats.cacheHits).toBeGreaterThanOrEqual(1);
    // Another column or another section is another entry.
    await api.post("/api/v2/contact/insights", {
      section: "breakdown",
      filter: europe,
      groupField: "COUNTRY_NAME_PER",
    });
    await api.post("/api/v2/contact/insights", { section: "summary", filter: sameAudience });
    expect(upstream.seen.filter((s) => s.path.endsWith("/insights"))).toHaveLength(3);
  });

  it("costs nothing and is open to a view-only key", async () => {
    const payg = await proxyOver(sandbox.fetch, { SANDBOX_KEY: "sbx_payg_demo", CACHE_TTL_MS: "0" });
    const before = await payg.api.get<{ credits: number }>("/api/v2/credits");
    for (const section of ["summary", "breakdown", "fields"])
      expect(
        (
          await payg.api.post("/api/v2/contact/insights", {
            section,
            filter: europe,
            groupField: "JOB_LEVEL_PER",
            fields: ["JOB_LEVEL_PER"],
          })
        ).status,
      ).toBe(200);
    const after = await payg.api.get<{ credits: number }>("/api/v2/credits");
    expect(after.body.credits).toBe(before.body.credits);

    const viewOnly = await proxyOver(sandbox.fetch, { SANDBOX_KEY: "sbx_viewonly_demo" });
    expect(
      (await viewOnly.api.post("/api/v2/contact/insights", { section: "summary", filter: europe })).status,
    ).toBe(200);
  });
});

describe("priority", () => {
  it("is a background operation: a count asked later is sent upstream before queued insights", async () => {
    expect(OPERATIONS.find((o) => o.id === "insights")).toMatchObject({
      priority: "background",
      cacheable: true,
    });
    expect(OPERATIONS.find((o) => o.id === "count")).toMatchObject({ priority: "interactive" });
    // An upstream allowing one call per 300 ms, recording the order calls arrive in.
    const order: string[] = [];
    let last = 0;
    const upstream = recording(async (request) => {
      const now = Date.now();
      if (now - last < 300)
        return json({ detail: "Rate limit exceeded", code: "RATE_LIMITED" }, 429, { "retry-after": "1" });
      last = now;
      const body = (await request.clone().json()) as { section?: string };
      order.push(body.section ?? new URL(request.url).pathname);
      return sandbox.fetch(request);
    });
    const { api, server } = await proxyOver(upstream, {
      UPSTREAM_RATE_PER_MIN: "1",
      UPSTREAM_RATE_WINDOW_MS: "300",
      CACHE_TTL_MS: "0",
    });
    const waitForQueue = async (n: number) => {
      while (server.proxy.stats.queueLength < n) await sleep(5);
    };
    const first = api.post("/api/v2/contact/insights", { section: "summary", filter: europe });
    await sleep(30);
    const queued = [
      api.post("/api/v2/contact/insights", {
        section: "breakdown",
        filter: europe,
        groupField: "JOB_LEVEL_PER",
      }),
      api.post("/api/v2/contact/insights", { section: "fields", filter: europe, fields: ["JOB_LEVEL_PER"] }),
    ];
    await waitForQueue(2);
    const count = api.post("/api/v2/contact/count", { filter: europe });
    await waitForQueue(3);
    const answers = await Promise.all([first, ...queued, count]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(order[0]).toBe("summary");
    expect(order[1]).toBe("/v2/contact/count");
    expect(order.slice(2).sort()).toEqual(["breakdown", "fields"]);
  });
});
