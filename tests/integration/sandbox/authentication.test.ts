/**
 * The documented Authentication rules (1-6), our inferred key rules, and key rotation (public docs,
 * INFERRED "Account"), over real HTTP against a sandbox of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import { OPERATIONS, type OperationSpec } from "../../../src/contract/routes";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import { cond, creditsOf, expectDetail, expectOk, group, KEYS, waitExport } from "./helpers";

const RATE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

/** A concrete path for an operation (params filled with plausible values). */
function pathOf(op: OperationSpec): string {
  return op.path
    .replace(":exportId", "exp_0000000000000000")
    .replace(":process_id", "1001")
    .replace(":column", "INDUSTRY_LINKEDIN_ORG");
}

/** A body that passes validation where one is needed, so that only the key decides. */
function plausibleBody(op: OperationSpec, domain: string): unknown {
  switch (op.id) {
    case "view":
    case "count":
      return { filter: null, limit: 1 };
    case "preview":
      return { limit: 1, reveal: "none" };
    case "estimate":
    case "exportStart":
      return { maxRows: 1, reveal: "none" };
    case "enrich":
      return { personIds: ["x"], reveal: "none" };
    case "insights":
      return { section: "summary" };
    case "companyCount":
      return { filter: null };
    case "lookalike":
      return { domain, limit: 2 };
    case "verifyV1":
    case "verifyV2":
      return { email: "someone@example.com" };
    case "batchV1":
      return { emails: ["someone@example.com"] };
    case "batchStatusV1Post":
    case "batchDownloadV1":
    case "cancelV1":
      return { process_id: "1001" };
    case "organizationResolve":
      return { company_name: "Acme" };
    case "organizationDiscover":
      return { keyword: "software" };
    default:
      return undefined;
  }
}

let server: SandboxServer;
let domain: string;

beforeAll(async () => {
  server = await startSandboxServer();
  const view = expectOk(
    await api(server.url, KEYS.payg).post("/v2/contact/view", { columns: ["DOMAIN_ORG"], limit: 1 }),
    responses.view,
  );
  domain = String(view.rows[0]!.DOMAIN_ORG);
});
afterAll(async () => {
  await server?.close();
});

describe("Authentication rule 1: the key is read from the x-key header only", () => {
  it("accepts the key in x-key (and X-Key: header names are case-insensitive)", async () => {
    expectOk(await api(server.url, KEYS.payg).get("/v2/credits"), responses.credits);
    const upper = await api(server.url, null).get("/v2/credits", { headers: { "X-Key": KEYS.payg } });
    expectOk(upper, responses.credits);
  });

  it.each([
    ["x-api-key header", { headers: { "x-api-key": KEYS.payg } }, ""],
    ["Authorization: Bearer", { headers: { authorization: `Bearer ${KEYS.payg}` } }, ""],
    ["Authorization: bare key", { headers: { authorization: KEYS.payg } }, ""],
    ["?x-key= query parameter", {}, `?x-key=${KEYS.payg}`],
    ["?api_key= query parameter", {}, `?api_key=${KEYS.payg}`],
  ])("401 {detail} for a key sent as %s", async (_name, options, query) => {
    const client = api(server.url, null);
    expectDetail(await client.get(`/v2/credits${query}`, options), 401);
    expectDetail(await client.post(`/v2/contact/count${query}`, {}, options), 401);
  });
});

describe("Authentication rule 3: missing or invalid key -> 401 {detail: string}", () => {
  it("401 with no key at all, on v1 and v2, GET and POST", async () => {
    const client = api(server.url, null);
    for (const answer of [
      await client.get("/v2/credits"),
      await client.get("/v1/credits"),
      await client.post("/v2/contact/count", {}),
      await client.post("/v2/contact/view", {}),
      await client.post("/v1/process-email", { email: "a@b.co" }),
    ])
      expectDetail(answer, 401);
  });

  it("401 for an empty key, an unknown key and the revoked demo key", async () => {
    for (const key of ["", "sbx_nope_demo", "SBX_PAYG_DEMO", KEYS.revoked]) {
      const client = api(server.url, key);
      expectDetail(await client.get("/v2/credits"), 401);
      expectDetail(await client.post("/v2/contact/count", {}), 401);
    }
  });

  it("401 for a key with whitespace inside it", async () => {
    for (const key of ["sbx_payg _demo", "sbx_payg\t_demo", "sbx payg demo"]) {
      expectDetail(await api(server.url, key).get("/v2/credits"), 401);
    }
  });

  it("whitespace at the ends is removed by HTTP itself (the key still works)", async () => {
    const answer = await api(server.url, null).get("/v2/credits", {
      headers: { "x-key": ` ${KEYS.payg}\t` },
    });
    expectOk(answer, responses.credits);
  });

  it("the key check comes before validation: a bad body with a bad key is 401, not 422", async () => {
    const answer = await api(server.url, KEYS.revoked).post("/v2/contact/count", undefined, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectDetail(answer, 401);
  });

  it("401 answers carry no X-RateLimit headers", async () => {
    const answers = [
      await api(server.url, null).get("/v2/credits"),
      await api(server.url, KEYS.revoked).post("/v2/contact/count", {}),
      await api(server.url, "sbx_payg _demo").post("/v2/contact/view", {}),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      for (const h of RATE_HEADERS) expect(answer.headers.get(h), h).toBeNull();
    }
  });
});

describe("Authentication rule 4: a valid key without permission -> 403 {detail: string}", () => {
  const paid = OPERATIONS.filter((op) => op.access === "paid");
  const open = OPERATIONS.filter((op) => op.access === "open");

  it("the operation table marks what a view-only key may not use", () => {
    const paidIds = paid.map((op) => op.id);
    for (const id of [
      "preview",
      "estimate",
      "exportStart",
      "exports",
      "enrich",
      "verifyV1",
      "batchV1",
      "verifyV2",
      "batchV2",
      "rotateV1",
      "rotateV2",
    ])
      expect(paidIds).toContain(id);
    const openIds = open.map((op) => op.id);
    for (const id of [
      "view",
      "count",
      "insights",
      "companyCount",
      "lookalike",
      "columnValues",
      "creditsV1",
      "creditsV2",
    ])
      expect(openIds).toContain(id);
  });

  it.each(paid.map((op) => [op.id, op] as const))(
    "%s: 403 {detail} for sbx_viewonly_demo",
    async (_id, op) => {
      const client = api(server.url, KEYS.viewonly);
      const answer =
        op.bodyKind === "multipart"
          ? await client.post(pathOf(op), undefined, { raw: new FormData() })
          : await client.call(
              op.method,
              pathOf(op),
              op.method === "POST" ? (plausibleBody(op, domain) ?? {}) : undefined,
            );
      expectDetail(answer, 403);
    },
  );

  it("403 comes before validation: a view-only key with a broken body on a paid op gets 403", async () => {
    const client = api(server.url, KEYS.viewonly);
    expectDetail(await client.post("/v2/contact/preview", { limit: "lots", reveal: "everything" }), 403);
    expectDetail(
      await client.post("/v2/contact/enrich", undefined, {
        raw: "[[[",
        headers: { "content-type": "application/json" },
      }),
      403,
    );
  });

  it.each(open.map((op) => [op.id, op] as const))("%s: 200 for sbx_viewonly_demo", async (_id, op) => {
    const client = api(server.url, KEYS.viewonly);
    const answer = await client.call(
      op.method,
      pathOf(op),
      op.method === "POST" ? plausibleBody(op, domain) : undefined,
    );
    expect(answer.status, answer.text).toBe(200);
  });
});

describe("Authentication rule 6 / INFERRED limits: 401 answers do not count against the rate limit", () => {
  let small: SandboxServer;
  beforeAll(async () => {
    small = await startSandboxServer({ ratePerMinute: 3 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it("after many 401s, a key still has its whole minute budget", async () => {
    for (let i = 0; i < 8; i++) {
      expect((await api(small.url, null).get("/v2/credits")).status).toBe(401);
      expect((await api(small.url, `${KEYS.payg} x`).get("/v2/credits")).status).toBe(401);
    }
    const client = api(small.url, KEYS.payg);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await client.get("/v2/credits");
      expect(answer.status).toBe(200);
      remaining.push(answer.headers.get("x-ratelimit-remaining") ?? "");
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    expect((await client.get("/v2/credits")).status).toBe(429);
  });

  it("the limit is per key: another key is unaffected", async () => {
    expect((await api(small.url, KEYS.ayce).get("/v2/credits")).status).toBe(200);
  });
});

describe("Authentication rule 5 / public docs: key rotation (GET /v1/new-api-key and POST /v2/account/api-keys/rotate)", () => {
  let rot: SandboxServer;
  /** The PAYG account's live key once the first test has rotated it. */
  let liveKey: string = KEYS.payg;
  const VIEW_BUDGET = 1_000;
  beforeAll(async () => {
    rot = await startSandboxServer({ viewBudget: VIEW_BUDGET });
  });
  afterAll(async () => {
    await rot?.close();
  });

  it("each rotation answers {api_key}; the new key works, the old is 401 at once; account state carries over", async () => {
    const key0 = api(rot.url, KEYS.payg);
    // Use the account: spend credits, use View budget, start an export.
    const preview = await key0.post("/v2/contact/preview", { limit: 3, reveal: "none" });
    expect(preview.status, preview.text).toBe(200);
    const view = await key0.post("/v2/contact/view", { limit: 7 });
    expect(view.status).toBe(200);
    expect(view.headers.get("x-freepreview-remaining")).toBe(String(VIEW_BUDGET - 7));
    const started = expectOk(
      await key0.post("/v2/contact/export", {
        filter: group([cond("RBID_PAO", "isNotNull")]),
        maxRows: 4,
        reveal: "none",
        name: "before-rotation",
      }),
      responses.exportStarted,
      202,
    );
    await waitExport(key0, started.exportId);
    const before = expectOk(await key0.get("/v2/credits"), responses.credits);

    // v1 rotation.
    const r1 = expectOk(await key0.get("/v1/new-api-key"), responses.newKey);
    expect(r1.api_key).not.toBe(KEYS.payg);
    const key1 = api(rot.url, r1.api_key);
    expectDetail(await key0.get("/v2/credits"), 401);
    expectDetail(await key0.post("/v2/contact/view", { limit: 1 }), 401);
    expect(expectOk(await key1.get("/v2/credits"), responses.credits)).toEqual(before);
    const view1 = await key1.post("/v2/contact/view", { limit: 5 });
    expect(view1.status).toBe(200);
    expect(view1.headers.get("x-freepreview-remaining")).toBe(String(VIEW_BUDGET - 12));
    const listed = expectOk(await key1.get("/v2/contact/exports"), responses.exports);
    expect(listed.exports.map((e) => e.exportId)).toContain(started.exportId);
    expect((await key1.get(`/v2/contact/export/${started.exportId}/download`)).status).toBe(200);

    // v2 rotation, from the rotated key.
    const r2 = expectOk(await key1.post("/v2/account/api-keys/rotate"), responses.newKey);
    expect(new Set([KEYS.payg, r1.api_key, r2.api_key]).size).toBe(3);
    const key2 = api(rot.url, r2.api_key);
    expectDetail(await key1.get("/v2/credits"), 401);
    expectDetail(await key1.post("/v2/account/api-keys/rotate"), 401);
    expectDetail(await key0.get("/v1/new-api-key"), 401);
    const after = expectOk(await key2.get("/v1/credits"), responses.credits);
    expect(after).toEqual(before);
    expect(after.plan).toBe("PAYG");
    const view2 = await key2.post("/v2/contact/view", { limit: 1 });
    expect(view2.headers.get("x-freepreview-remaining")).toBe(String(VIEW_BUDGET - 13));
    expect(
      expectOk(await key2.get("/v2/contact/exports"), responses.exports).exports.map((e) => e.exportId),
    ).toContain(started.exportId);
    // Rotation costs nothing.
    expect(await creditsOf(key2)).toBe(before.credits);

    // Other accounts are untouched.
    expectOk(await api(rot.url, KEYS.ayce).get("/v2/credits"), responses.credits);

    // The rotation survives a restart on the same state.
    await rot.close({ keepData: true });
    rot = await startSandboxServer({ viewBudget: VIEW_BUDGET, dataDir: rot.dataDir });
    const again = api(rot.url, r2.api_key);
    liveKey = r2.api_key;
    expect(expectOk(await again.get("/v2/credits"), responses.credits)).toEqual(before);
    expectDetail(await api(rot.url, KEYS.payg).get("/v2/credits"), 401);
    expectDetail(await api(rot.url, r1.api_key).get("/v2/credits"), 401);
    const view3 = await again.post("/v2/contact/view", { limit: 1 });
    expect(view3.headers.get("x-freepreview-remaining")).toBe(String(VIEW_BUDGET - 14));
    expect(
      expectOk(await again.get("/v2/contact/exports"), responses.exports).exports.map((e) => e.exportId),
    ).toContain(started.exportId);
  });

  it("two concurrent rotations with one key leave exactly one live key", async () => {
    const [a, b] = await Promise.all([
      api(rot.url, liveKey).post("/v2/account/api-keys/rotate"),
      api(rot.url, liveKey).get("/v1/new-api-key"),
    ]);
    const minted = [a, b].filter((x) => x.status === 200).map((x) => responses.newKey.parse(x.body).api_key);
    expect(minted.length).toBeGreaterThanOrEqual(1);
    for (const refused of [a, b].filter((x) => x.status !== 200)) expectDetail(refused, 401);
    const live: string[] = [];
    for (const key of [liveKey, ...minted])
      if ((await api(rot.url, key).get("/v2/credits")).status === 200) live.push(key);
    expect(live, `minted ${minted.length} keys from one`).toHaveLength(1);
  });

  it("the AYCE key rotates too and keeps its plan", async () => {
    const ayce = api(rot.url, KEYS.ayce);
    const before = expectOk(await ayce.get("/v2/account/balance"), responses.credits);
    const rotated = expectOk(await ayce.post("/v2/account/api-keys/rotate"), responses.newKey);
    expectDetail(await ayce.get("/v2/credits"), 401);
    const after = expectOk(await api(rot.url, rotated.api_key).get("/v2/account/balance"), responses.credits);
    expect(after).toEqual(before);
    expect(after.plan).toBe("AYCE");
  });
});
