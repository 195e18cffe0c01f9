/**
 * The documented Errors table (401, 403, 422, 429 x2), our inferred error order and bodies (402, 404,
 * 410), and the Versioning rules for v1 (Deprecation / Sunset, retirement).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insufficientCreditsSchema,
  rateLimitedSchema,
  validationRecordSchema,
} from "../../../src/contract/errors";
import { responses } from "../../../src/contract/operations";
import { OPERATIONS } from "../../../src/contract/routes";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import { cond, creditsOf, expect422, expectDetail, expectOk, group, KEYS, sampleIds } from "./helpers";

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer();
});
afterAll(async () => {
  await server?.close();
});

const payg = () => api(server.url, KEYS.payg);
const badJson = { raw: '{"filter": ', headers: { "content-type": "application/json" } };

describe("Errors 401: missing or invalid API key -> {detail: string}", () => {
  it("no key, an unknown key, the revoked key", async () => {
    expectDetail(await api(server.url, null).post("/v2/contact/count", {}), 401);
    expectDetail(await api(server.url, "sbx_unknown").post("/v2/contact/count", {}), 401);
    expectDetail(await api(server.url, KEYS.revoked).post("/v2/contact/count", {}), 401);
  });
});

describe("Errors 403: key valid but lacks permission -> {detail: string}", () => {
  it("the view-only key on preview", async () => {
    expectDetail(await api(server.url, KEYS.viewonly).post("/v2/contact/preview", { reveal: "none" }), 403);
  });
});

describe("Errors 422: invalid filter, column or body -> the documented validation record", () => {
  it("a body that is not JSON: json_invalid", async () => {
    const record = expect422(await payg().post("/v2/contact/count", undefined, badJson));
    expect(record.detail[0]!.type).toBe("json_invalid");
    expect(record.detail[0]!.loc[0]).toBe("body");
  });

  it("a body that is a JSON array (not an object)", async () => {
    const record = expect422(await payg().post("/v2/contact/view", [{ limit: 5 }]));
    expect(record.detail[0]!.loc[0]).toBe("body");
    expect(record.detail[0]!.type).toBe("dict_type");
  });

  it("an unknown column in a filter: loc [body, filter, children, 0, column]", async () => {
    const record = expect422(
      await payg().post("/v2/contact/count", {
        filter: group([cond("NO_SUCH_COLUMN", "eq", { value: "x" })]),
      }),
    );
    expect(record.detail.map((d) => d.loc)).toContainEqual(["body", "filter", "children", 0, "column"]);
  });

  it("the unknown column deeper in the tree is located there", async () => {
    const filter = group([
      cond("COUNTRY_NAME_PER", "isNotNull"),
      group([cond("nope", "isNull")], { op: "OR" }),
    ]);
    const record = expect422(await payg().post("/v2/contact/view", { filter }));
    expect(record.detail.map((d) => d.loc)).toContainEqual([
      "body",
      "filter",
      "children",
      1,
      "children",
      0,
      "column",
    ]);
  });

  it('no coercion: "5" for an integer column is a 422 at value (int_type)', async () => {
    const record = expect422(
      await payg().post("/v2/contact/count", { filter: group([cond("FOUNDED_ORG", "eq", { value: "5" })]) }),
    );
    const issue = record.detail.find((d) => d.loc.join("/") === "body/filter/children/0/value");
    expect(issue, JSON.stringify(record)).toBeDefined();
    expect(issue!.type).toBe("int_type");
    // ...and the same filter with the number is fine.
    expect(
      (
        await payg().post("/v2/contact/count", {
          filter: group([cond("FOUNDED_ORG", "eq", { value: 2005 })]),
        })
      ).status,
    ).toBe(200);
  });

  it("an unknown column in `columns`: loc [body, columns, i]", async () => {
    const record = expect422(
      await payg().post("/v2/contact/view", { columns: ["FULL_NAME_PER", "JOB_TITLE_PER", "BOGUS"] }),
    );
    expect(record.detail.map((d) => d.loc)).toContainEqual(["body", "columns", 2]);
    const preview = expect422(
      await payg().post("/v2/contact/preview", { reveal: "none", columns: ["nope"] }),
    );
    expect(preview.detail.map((d) => d.loc)).toContainEqual(["body", "columns", 0]);
  });

  it("an operator the column does not allow, and a missing operand, are 422 at the node", async () => {
    const masked = expect422(
      await payg().post("/v2/contact/count", {
        filter: group([cond("EMAIL_ADDRESS_PER", "startsWith", { value: "a" })]),
      }),
    );
    expect(masked.detail[0]!.loc.slice(0, 4)).toEqual(["body", "filter", "children", 0]);
    const missing = expect422(
      await payg().post("/v2/contact/count", {
        filter: group([cond("FOUNDED_ORG", "between", { value: 1990 })]),
      }),
    );
    expect(missing.detail.map((d) => d.loc)).toContainEqual(["body", "filter", "children", 0, "value2"]);
  });

  it("filter limits: valueList of 1 to 10,000 entries, empty semantic text, nesting deeper than 32", async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect422(
      await payg().post("/v2/contact/count", { filter: group([cond("CITY_PER", "in", { valueList: [] })]) }),
    );
    expect422(
      await payg().post("/v2/contact/count", {
        filter: group([cond("CITY_PER", "in", { valueList: list(10_001) })]),
      }),
    );
    expect(
      (
        await payg().post("/v2/contact/count", {
          filter: group([cond("CITY_PER", "in", { valueList: list(10_000) })]),
        })
      ).status,
    ).toBe(200);
    const blank = expect422(
      await payg().post("/v2/contact/count", {
        filter: group([{ type: "semantic", on: "title", text: "  " }]),
      }),
    );
    expect(blank.detail[0]!.loc.slice(0, 4)).toEqual(["body", "filter", "children", 0]);
    let deep: Record<string, unknown> = group([]);
    for (let i = 0; i < 40; i++) deep = group([deep]);
    expect422(await payg().post("/v2/contact/count", { filter: deep }));
  });

  it("a missing required field (reveal) and a wrong enum value", async () => {
    const record = expect422(await payg().post("/v2/contact/preview", { limit: 1 }));
    const reveal = record.detail.find((d) => d.loc.join("/") === "body/reveal");
    expect(reveal?.type).toBe("missing");
    expect422(await payg().post("/v2/contact/preview", { limit: 1, reveal: "all" }));
  });

  it("path and query parameters are located under path / query", async () => {
    const column = expect422(await payg().get("/v2/contact/company/columns/FULL_NAME_PER/values"));
    expect(column.detail[0]!.loc).toEqual(["path", "column"]);
    const job = expect422(await payg().get("/v2/jobs/abc"));
    expect(job.detail[0]!.loc).toEqual(["path", "process_id"]);
    const status = expect422(await payg().get("/v1/batch-process-email-status"));
    expect(status.detail[0]!.loc).toEqual(["query", "process_id"]);
  });

  it("every operation with a JSON body answers a broken body with a validation record", async () => {
    const client = api(server.url, KEYS.ayce);
    for (const op of OPERATIONS.filter((o) => o.bodyKind === "json" && o.body)) {
      const path = op.path.replace(":exportId", "exp_1").replace(":process_id", "1");
      const notJson = await client.post(path, undefined, badJson);
      expect(notJson.status, `${op.id}: ${notJson.text}`).toBe(422);
      expect(validationRecordSchema.safeParse(notJson.body).success, op.id).toBe(true);
      const array = await client.post(path, [1, 2]);
      expect(array.status, `${op.id}: ${array.text}`).toBe(422);
      expect(validationRecordSchema.safeParse(array.body).success, op.id).toBe(true);
    }
  });

  it("a multipart upload without requested_file is a 422 at body.requested_file", async () => {
    const record = expect422(await payg().post("/v1/batch-upload", { emails: ["a@b.co"] }));
    expect(record.detail[0]!.loc).toEqual(["body", "requested_file"]);
  });
});

describe("INFERRED error order: key (401), permission (403), rate limit (429), validation (422), business rules", () => {
  it("a view-only key with a bad body on a paid operation gets 403, not 422", async () => {
    expectDetail(await api(server.url, KEYS.viewonly).post("/v2/contact/preview", undefined, badJson), 403);
    expectDetail(await api(server.url, KEYS.viewonly).post("/v2/contact/export", { maxRows: -1 }), 403);
  });

  it("a revoked key with a bad body on a paid operation gets 401, not 403 or 422", async () => {
    expectDetail(await api(server.url, KEYS.revoked).post("/v2/contact/preview", undefined, badJson), 401);
  });

  it("validation comes before business rules: a bad body on a missing export is 422, not 404", async () => {
    expect422(await payg().get("/v2/contact/export/has.dots!/download"));
  });
});

describe("Errors 429 (ordinary rate limit) and Limits rule 4: code RATE_LIMITED, X-RateLimit-* headers", () => {
  let limited: SandboxServer;
  beforeAll(async () => {
    limited = await startSandboxServer({ ratePerMinute: 5 });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it("5 calls pass (a 422 counts too), the 6th is 429 with Retry-After; headers on every authenticated answer", async () => {
    const client = api(limited.url, KEYS.payg);
    const t0 = Math.floor(Date.now() / 1000);
    const answers = [
      await client.post("/v2/contact/count", undefined, badJson), // 422, still counted
      await client.post("/v2/contact/count", {}),
      await client.get("/v2/credits"),
      await client.get("/v2/contact/export/exp_missing"), // 404 business answer
      await client.post("/v2/contact/view", { limit: 1 }),
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 200, 200, 404, 200]);
    answers.forEach((answer, i) => {
      expect(answer.headers.get("x-ratelimit-limit")).toBe("5");
      expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(4 - i));
      const reset = Number(answer.headers.get("x-ratelimit-reset"));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(t0);
      expect(reset).toBeLessThanOrEqual(t0 + 62);
    });

    const sixth = await client.post("/v2/contact/count", {});
    expect(sixth.status, sixth.text).toBe(429);
    const body = rateLimitedSchema.parse(sixth.body);
    expect(body.code).toBe("RATE_LIMITED");
    const retryAfter = Number(sixth.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sixth.headers.get("x-ratelimit-limit")).toBe("5");
    expect(sixth.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(sixth.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);

    // Over the limit, a bad body is still a 429, not a 422; View is limited as well.
    const seventh = await client.post("/v2/contact/view", undefined, badJson);
    expect(seventh.status).toBe(429);
    expect(rateLimitedSchema.safeParse(seventh.body).success).toBe(true);
    expect((await client.post("/v2/contact/view", { limit: 1 })).status).toBe(429);
  });

  it("the limit is per key: another key still passes", async () => {
    const other = await api(limited.url, KEYS.ayce).get("/v2/credits");
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("over the limit, a view-only key on a paid operation is still 403 (permission before rate)", async () => {
    const viewonly = api(limited.url, KEYS.viewonly);
    for (let i = 0; i < 5; i++) expect((await viewonly.post("/v2/contact/count", {})).status).toBe(200);
    expect((await viewonly.post("/v2/contact/count", {})).status).toBe(429);
    expectDetail(await viewonly.post("/v2/contact/preview", { reveal: "none" }), 403);
  });
});

describe("INFERRED 402: INSUFFICIENT_CREDITS {detail, code, required, balance}, nothing charged", () => {
  it("drains a PAYG account with reveal-both previews, then every paid ask beyond the balance is 402", async () => {
    const client = payg();
    let balance = await creditsOf(client);
    expect(balance).toBeGreaterThan(0);
    const filter = group([cond("EMAIL_ADDRESS_PER", "isNotNull"), cond("CELLPHONE_PER", "isNotNull")]);

    // Big previews until one no longer fits.
    let refused: unknown = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      const answer = await client.post("/v2/contact/preview", { filter, limit: 100, reveal: "both" });
      if (answer.status === 402) refused = answer.body;
      else {
        const preview = expectOk(answer, responses.preview);
        expect(preview.creditsRemaining).toBe(balance - preview.creditsCharged);
        balance = preview.creditsRemaining;
      }
    }
    const first = insufficientCreditsSchema.parse(refused);
    expect(first.balance).toBe(balance);
    expect(first.required).toBeGreaterThan(balance);
    expect(await creditsOf(client)).toBe(balance);

    // Bring the balance to exactly 0 with reveal-none previews (1 credit per row).
    while (balance > 0) {
      const limit = Math.min(100, balance);
      const preview = expectOk(
        await client.post("/v2/contact/preview", { limit, reveal: "none" }),
        responses.preview,
      );
      expect(preview.creditsCharged).toBe(limit);
      balance = preview.creditsRemaining;
    }
    expect(await creditsOf(client)).toBe(0);

    const ids = await sampleIds(client, null, 3);
    const asks = [
      await client.post("/v2/contact/preview", { limit: 1, reveal: "none" }),
      await client.post("/v2/contact/enrich", { personIds: ids, reveal: "both" }),
      await client.post("/v2/contact/export", { maxRows: 10, reveal: "none" }),
    ];
    for (const answer of asks) {
      expect(answer.status, answer.text).toBe(402);
      const body = insufficientCreditsSchema.parse(answer.body);
      expect(body.balance).toBe(0);
      expect(body.required).toBeGreaterThan(0);
    }
    expect((asks[0]!.body as { required: number }).required).toBe(1);
    expect((asks[2]!.body as { required: number }).required).toBe(10);

    // The estimate still answers, and says it is not sufficient.
    const estimate = expectOk(
      await client.post("/v2/contact/export/estimate", { maxRows: 10, reveal: "none" }),
      responses.estimate,
    );
    expect(estimate).toMatchObject({ credits: 10, balance: 0, sufficient: false });

    // Nothing was charged, no export was created.
    expect(await creditsOf(client)).toBe(0);
    expect(expectOk(await client.get("/v2/contact/exports"), responses.exports).exports).toEqual([]);

    // Free things still work at 0: View, count, an enrich that finds nothing.
    expect((await client.post("/v2/contact/view", { limit: 1 })).status).toBe(200);
    const nothing = expectOk(
      await client.post("/v2/contact/enrich", { personIds: ["no-such-id"], reveal: "both" }),
      responses.enrich,
    );
    expect(nothing).toMatchObject({ matched: 0, notFound: ["no-such-id"], creditsCharged: 0 });

    // Verification at 0: a definite answer (1 credit) is a 402, an UNKNOWN one (free) is answered.
    const withEmail = await sampleIds(client, group([cond("EMAIL_ADDRESS_PER", "isNotNull")]), 1);
    const address = expectOk(
      await api(server.url, KEYS.ayce).post("/v2/contact/enrich", { personIds: withEmail, reveal: "email" }),
      responses.enrich,
    ).rows[0]!.EMAIL_ADDRESS_PER;
    for (const answer of [
      await client.post("/v1/process-email", { email: address }),
      await client.post("/v2/email/verify", { email: address }),
    ]) {
      expect(answer.status, answer.text).toBe(402);
      expect(insufficientCreditsSchema.parse(answer.body)).toMatchObject({ required: 1, balance: 0 });
    }
    const unknown = expectOk(
      await client.post("/v1/process-email", { email: "someone@unknown-company-zz.com" }),
      responses.verifyV1,
    );
    expect(unknown.deliverability).toBe("UNKNOWN");
    expect(await creditsOf(client)).toBe(0);
  });
});

describe("Unknown paths -> 404 {detail}", () => {
  it("with and without a key; a wrong method on a known path too", async () => {
    expectDetail(await payg().get("/v2/contact/nope"), 404);
    expectDetail(await api(server.url, null).post("/v3/anything", {}), 404);
    expectDetail(await payg().get("/v2/contact/count"), 404);
  });
});

describe("Versioning rule 1 / INFERRED: v1 answers carry Deprecation and Sunset", () => {
  it("on success and on error answers of v1 paths, and not on v2", async () => {
    const answers = [
      await payg().get("/v1/credits"),
      await api(server.url, null).get("/v1/credits"),
      await api(server.url, KEYS.ayce).post("/v1/process-email", { email: "x@example.com" }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 200]);
    for (const answer of answers) {
      expect(answer.headers.get("deprecation")).toBeTruthy();
      const sunset = answer.headers.get("sunset");
      expect(sunset).toBeTruthy();
      expect(new Date(sunset!).toISOString().slice(0, 10)).toBe("2026-07-07");
    }
    const v2 = await payg().get("/v2/credits");
    expect(v2.headers.get("deprecation")).toBeNull();
    expect(v2.headers.get("sunset")).toBeNull();
  });
});

describe("public docs Generations: with v1 retired every v1 path answers 410 Gone", () => {
  let retired: SandboxServer;
  beforeAll(async () => {
    retired = await startSandboxServer({ v1Retired: true });
  });
  afterAll(async () => {
    await retired?.close();
  });

  it("every v1 operation of the table, with or without a key; v2 still works", async () => {
    const v1 = OPERATIONS.filter((op) => op.generation === "v1");
    expect(v1.length).toBeGreaterThanOrEqual(10);
    for (const op of v1) {
      for (const key of [KEYS.payg, null]) {
        const answer = await api(retired.url, key).call(
          op.method,
          op.path,
          op.method === "POST" ? {} : undefined,
        );
        expectDetail(answer, 410);
      }
    }
    expectOk(await api(retired.url, KEYS.payg).get("/v2/credits"), responses.credits);
  });

  it("any other v1 path and method too", async () => {
    expectDetail(await api(retired.url, KEYS.payg).get("/v1/anything-else"), 410);
    expectDetail(await api(retired.url, null).call("DELETE", "/v1/credits", undefined), 410);
  });
});
