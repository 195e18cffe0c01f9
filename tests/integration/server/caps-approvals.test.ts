/**
 * Caps and approvals through the proxy over the real sandbox (PAYG), the sandbox's own balance read
 * directly after every step: a buyer with a 50-credit cap buys 40 and is refused 20 with nothing
 * sent; the team's cap refuses too; two purchases at once that together pass a cap: one is refused;
 * a purchase above the buyer's threshold waits for an admin (nothing sent), runs once when approved
 * (the requester's same key then gets its answer, replayed), and never after a denial; nobody
 * approves their own; the month's summary and the ledger's CSV follow the roles. Run on PGlite and
 * on PostgreSQL.
 */
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerAnswer } from "../../../src/contract/ledger";
import { approvalSchema, approvalsAnswer, capsSchema, spendingSummary } from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import { csvCell, LEDGER_CSV_HEADER } from "../../../src/server/spend/ledger";
import { admitPreview } from "../../../src/server/spend/spending-policy";
import {
  type Browser,
  sandboxCall as callSandbox,
  recording,
  startSandbox,
} from "../../support/proxy-server";
import { PASSWORD, signIn, startTeam, type Team } from "../../support/team";

const PAYG = "sbx_payg_demo";
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };
/** Germans with an email: each one enriched with reveal "email" costs exactly 2 credits. */
const withEmail = {
  type: "group",
  op: "AND",
  children: [
    { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
    { type: "condition", column: "EMAIL_ADDRESS_PER", operator: "isNotNull" },
  ],
};

let sandbox: Sandbox;
/** Set: the next enrich is carried out (and charged) by the sandbox, and its answer lost on the way. */
let loseNextEnrich = false;
const upstream = recording(async (request) => {
  const response = await sandbox.fetch(request);
  if (loseNextEnrich && new URL(request.url).pathname === "/v2/contact/enrich") {
    loseNextEnrich = false;
    throw new Error("connection reset by the test");
  }
  return response;
});
const ENRICH = "/v2/contact/enrich";
const EXPORT = "/v2/contact/export";
const sent = (pathname: string) => upstream.seen.filter((s) => s.path === pathname);

let pool: string[];
/** Ids no other test has bought (owned ones would be free, and priced so). */
const fresh = (n: number) => {
  const taken = pool.splice(0, n);
  expect(taken).toHaveLength(n);
  return taken;
};
let keyNumber = 0;
const newKey = () => `caps-${++keyNumber}-${Date.now()}`;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  pool = [];
  for (const country of ["Germany", "France", "Spain"]) {
    const filter = structuredClone(withEmail);
    filter.children[0]!.value = country;
    const view = await sandboxCall<{ rows: { RBID_PAO: string }[] }>("POST", "/v2/contact/view", {
      filter,
      limit: 100,
    });
    pool.push(...view.rows.map((r) => r.RBID_PAO));
  }
  expect(new Set(pool).size).toBeGreaterThanOrEqual(250);
});
afterAll(async () => {
  await sandbox?.close();
});

/** Straight to the sandbox (PAYG): the proxy is not trusted to report what it spends. */
const sandboxCall = <T>(method: string, pathname: string, body?: unknown) =>
  callSandbox<T>(sandbox, PAYG, method, pathname, body);
const balance = async () => (await sandboxCall<{ credits: number }>("GET", "/v2/credits")).credits;

interface Enriched {
  rows: Record<string, unknown>[];
  creditsCharged: number;
  detail?: string;
  code?: string;
  approvalRequested?: unknown;
}
const enrich = (client: Browser, personIds: string[], key = newKey()) =>
  client.post<Enriched>("/api/v2/contact/enrich", { personIds, reveal: "email" }, { idempotencyKey: key });

const putCaps = (client: Browser, body: unknown) => client.call("PUT", "/api/spending/caps", body);
const person = (name: string, monthlyCap: number | null, approvalThreshold: number | null = null) => ({
  name,
  monthlyCap,
  approvalThreshold,
});

async function team(): Promise<Team> {
  return startTeam({ upstream, env: { SANDBOX_KEY: PAYG, ...FAST } });
}

describe("monthly caps", () => {
  let t: Team;
  beforeAll(async () => {
    t = await team();
  });
  afterAll(async () => {
    await t?.server.close();
  });

  it("a cap belongs to its person: removed and added again under the same name, they start without it", async () => {
    const added = await t.admin.post("/api/team/people", {
      name: "dee",
      role: "buyer",
      password: "dee-password-1",
    });
    expect(added.status, added.text).toBe(201);
    expect((await putCaps(t.admin, { people: [person("dee", 7, 3)] })).status).toBe(200);
    expect((await t.admin.call("DELETE", "/api/team/people/dee")).status).toBe(200);
    const again = await t.admin.post("/api/team/people", {
      name: "dee",
      role: "buyer",
      password: "dee-password-2",
    });
    expect(again.status, again.text).toBe(201);
    const caps = capsSchema.parse((await t.admin.get("/api/spending/caps")).body);
    expect(caps.people).toContainEqual(person("dee", null));
    expect((await t.admin.call("DELETE", "/api/team/people/dee")).status).toBe(200);
  });

  it("a hold counts in its own month only: one left from last month is not this month's money", async () => {
    const { db } = t.server.proxy.database;
    const spentByCy = async () =>
      spendingSummary
        .parse((await t.admin.get("/api/spending/summary")).body)
        .people.find((p) => p.name === "cy")?.spent;
    const before = await spentByCy();
    await db
      .insertInto("spend_holds")
      .values({
        entry_id: "last-month-hold",
        person: "cy",
        credits: 500,
        at: new Date(Date.now() - 40 * 86_400_000),
      })
      .execute();
    try {
      expect(await spentByCy()).toBe(before);
    } finally {
      await db.deleteFrom("spend_holds").where("entry_id", "=", "last-month-hold").execute();
    }
  });

  it("everyone reads the caps; only admins change them, with the names on the team, audited", async () => {
    const none = capsSchema.parse((await t.analyst.get("/api/spending/caps")).body);
    expect(none).toEqual({
      teamMonthlyCap: null,
      people: [person("ada", null), person("bo", null), person("cy", null)],
    });
    const refused = await putCaps(t.buyer, { people: [person("bo", 1000)] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "ROLE_REQUIRED" });
    expect((await putCaps(t.admin, { people: [person("zed", 10)] })).status).toBe(422);
    expect(
      (await putCaps(t.admin, { people: [{ name: "bo", monthlyCap: -1, approvalThreshold: null }] })).status,
    ).toBe(422);
    expect((await putCaps(t.admin, { teamMonthlyCap: 10, extra: 1 })).status).toBe(422);
    expect((await t.buyer.get("/api/spending/caps")).body).toEqual(none);

    const set = await putCaps(t.admin, { people: [person("bo", 50)] });
    expect(set.status).toBe(200);
    expect(capsSchema.parse(set.body).people).toContainEqual(person("bo", 50));
    const audit = (await t.admin.get("/api/team/audit")).body as {
      entries: { action: string; target: string; summary: string }[];
    };
    expect(audit.entries[0]).toMatchObject({
      action: "spending.caps",
      target: "bo",
      summary: "monthly cap none → 50",
    });
  });

  it("a buyer with a 50-credit cap buys 40, then is refused 20 with nothing sent and the balance unchanged", async () => {
    const before = await balance();
    const first = await enrich(t.buyer, fresh(20));
    expect(first.status).toBe(200);
    expect(first.body.creditsCharged).toBe(40);
    expect(await balance()).toBe(before - 40);

    const enrichCalls = sent(ENRICH).length;
    const refused = await enrich(t.buyer, fresh(10));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "CAP_REACHED",
      detail:
        "This purchase may cost up to 20 credits; your monthly cap is 50 and 40 are already spent this month, so 10 are left. Nothing was sent.",
    });
    expect(sent(ENRICH).length, "no enrich reached the service").toBe(enrichCalls);
    expect(await balance()).toBe(before - 40);

    // What is left can still be bought: 5 people cost at most 10.
    const five = fresh(5);
    const rest = await enrich(t.buyer, five);
    expect(rest.status).toBe(200);
    expect(await balance()).toBe(before - 50);

    const summary = spendingSummary.parse((await t.buyer.get("/api/spending/summary")).body);
    expect(summary.people).toEqual([{ name: "bo", spent: 50, cap: 50, approvalThreshold: null, unknown: 0 }]);
    const ledger = ledgerAnswer.parse((await t.buyer.get("/api/ledger")).body);
    expect(ledger.entries.map((e) => [e.creditsEstimated, e.creditsCharged])).toEqual([
      [10, 10],
      [40, 40],
    ]);
    // No hold outlives its purchase.
    const db = t.server.proxy.database.db;
    expect(await db.selectFrom("spend_holds").selectAll().execute()).toEqual([]);

    // What the review before a purchase is told (nothing held).
    expect(await admitPreview(db, "bo", 2)).toEqual({
      verdict: "refused",
      reason:
        "This purchase may cost up to 2 credits; your monthly cap is 50 and 50 are already spent this month, so 0 are left.",
      caps: [{ scope: "person", cap: 50, spent: 50, left: 0 }],
      approvalThreshold: null,
    });
    expect((await admitPreview(db, "bo", 0)).verdict).toBe("ok");

    // People the team owns are priced at nothing: at the cap, they are still served (free).
    const owned = await enrich(t.buyer, five);
    expect(owned.status).toBe(200);
    expect(owned.body.creditsCharged).toBe(0);
    expect(await balance()).toBe(before - 50);
  });

  it("a replay of a purchase made before the cap was reached is not refused by it", async () => {
    await putCaps(t.admin, { people: [person("ada", 10)] });
    const key = newKey();
    const ids = fresh(5);
    const first = await enrich(t.admin, ids, key);
    expect(first.status).toBe(200);
    const before = await balance();
    const again = await enrich(t.admin, ids, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await balance()).toBe(before);
  });

  it("the team's cap refuses whoever passes it, saying so", async () => {
    const other = await team();
    try {
      await putCaps(other.admin, { teamMonthlyCap: 30 });
      const before = await balance();
      expect((await enrich(other.admin, fresh(10))).status).toBe(200);
      const enrichCalls = sent(ENRICH).length;
      const refused = await enrich(other.buyer, fresh(10));
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        code: "CAP_REACHED",
        detail:
          "This purchase may cost up to 20 credits; the team's monthly cap is 30 and 20 are already spent this month, so 10 are left. Nothing was sent.",
      });
      expect(sent(ENRICH).length).toBe(enrichCalls);
      expect(await balance()).toBe(before - 20);
      const summary = spendingSummary.parse((await other.admin.get("/api/spending/summary")).body);
      expect(summary.team).toEqual({ spent: 20, cap: 30 });
    } finally {
      await other.server.close();
    }
  });

  it("two purchases at once that together pass the cap: one is bought, the other refused", async () => {
    const other = await team();
    try {
      await putCaps(other.admin, { people: [person("bo", 30)] });
      const before = await balance();
      const enrichCalls = sent(ENRICH).length;
      const answers = await Promise.all([enrich(other.buyer, fresh(10)), enrich(other.buyer, fresh(10))]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
      expect(answers.find((a) => a.status === 403)?.body).toMatchObject({ code: "CAP_REACHED" });
      expect(sent(ENRICH).length).toBe(enrichCalls + 1);
      expect(await balance()).toBe(before - 20);
    } finally {
      await other.server.close();
    }
  });
});

describe("an outcome not known", () => {
  it("counts its estimate against the cap (the ledger's row carries it) until the balance says otherwise", async () => {
    const other = await team();
    try {
      await putCaps(other.admin, { people: [person("bo", 50)] });
      const before = await balance();
      loseNextEnrich = true;
      const lost = await enrich(other.buyer, fresh(10));
      expect(lost.status).toBe(502);
      expect(lost.body).toMatchObject({ code: "OUTCOME_UNKNOWN" });
      expect(await balance()).toBe(before - 20);
      const ledger = ledgerAnswer.parse((await other.buyer.get("/api/ledger")).body);
      expect(ledger.entries).toEqual([
        expect.objectContaining({ outcome: "unknown", creditsEstimated: 20, creditsCharged: null }),
      ]);
      const summary = spendingSummary.parse((await other.buyer.get("/api/spending/summary")).body);
      expect(summary.people).toEqual([
        { name: "bo", spent: 20, cap: 50, approvalThreshold: null, unknown: 1 },
      ]);
      expect(await other.server.proxy.database.db.selectFrom("spend_holds").selectAll().execute()).toEqual(
        [],
      );

      const enrichCalls = sent(ENRICH).length;
      const refused = await enrich(other.buyer, fresh(20));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: "CAP_REACHED",
        detail: expect.stringContaining(
          "your monthly cap is 50 and 20 are already spent this month, so 30 are left",
        ),
      });
      expect(sent(ENRICH).length).toBe(enrichCalls);
    } finally {
      loseNextEnrich = false;
      await other.server.close();
    }
  });
});

describe("approvals", () => {
  let t: Team;
  let di: Browser;
  beforeAll(async () => {
    t = await team();
    const added = await t.admin.post("/api/team/people", {
      name: "di",
      role: "admin",
      password: PASSWORD("di"),
    });
    expect(added.status).toBe(201);
    di = await signIn(t.server.url, "di");
    const set = await putCaps(t.admin, { people: [person("bo", null, 10), person("di", null, 5)] });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await t?.server.close();
  });

  it("above the threshold: 202 with the request, nothing sent; approved, it runs once and the same key gets its answer", async () => {
    const ids = fresh(10);
    const key = newKey();
    const before = await balance();
    const enrichCalls = sent(ENRICH).length;
    const asked = await enrich(t.buyer, ids, key);
    expect(asked.status).toBe(202);
    expect(asked.body.code).toBe("APPROVAL_REQUESTED");
    expect(asked.body.detail).toMatch(/up to 20 credits, above your approval threshold of 10/);
    const approval = approvalSchema.parse(asked.body.approvalRequested);
    expect(approval).toMatchObject({
      requestedBy: "bo",
      operation: "enrich",
      summary: "Enrich 10 contacts, emails revealed",
      creditsEstimated: 20,
      state: "waiting",
      decidedBy: null,
    });
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(await balance()).toBe(before);

    // Sent again: the same request, still waiting; other details under the key: refused.
    const again = await enrich(t.buyer, ids, key);
    expect(again.status).toBe(202);
    expect(approvalSchema.parse(again.body.approvalRequested).id).toBe(approval.id);
    const other = await enrich(t.buyer, ids.slice(0, 9), key);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });

    // Who sees it, who may decide.
    expect(
      approvalsAnswer.parse((await t.buyer.get("/api/approvals")).body).approvals.map((a) => a.id),
    ).toEqual([approval.id]);
    expect(approvalsAnswer.parse((await t.analyst.get("/api/approvals")).body).approvals).toEqual([]);
    expect(
      approvalsAnswer
        .parse((await t.admin.get("/api/approvals?state=waiting")).body)
        .approvals.map((a) => a.id),
    ).toContain(approval.id);
    expect((await t.admin.get("/api/approvals?state=maybe")).status).toBe(422);
    expect((await t.buyer.post(`/api/approvals/${approval.id}/approve`)).status).toBe(403);
    expect(sent(ENRICH).length).toBe(enrichCalls);

    const approved = await t.admin.post(`/api/approvals/${approval.id}/approve`);
    expect(approved.status).toBe(200);
    const ran = approvalSchema.parse(approved.body);
    expect(ran).toMatchObject({
      state: "ran",
      decidedBy: "ada",
      outcome: "Ran: 10 contacts delivered, 20 credits charged.",
    });
    expect(sent(ENRICH).length).toBe(enrichCalls + 1);
    expect(await balance()).toBe(before - 20);

    // Approving twice does not run it twice; the requester's same key gets the answer, replayed.
    const twice = await di.post(`/api/approvals/${approval.id}/approve`);
    expect(twice.status).toBe(409);
    const answer = await enrich(t.buyer, ids, key);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("idempotent-replayed")).toBe("true");
    expect(answer.body.creditsCharged).toBe(20);
    expect(answer.body.rows.map((r) => r.RBID_PAO)).toEqual(ids);
    expect(sent(ENRICH).length).toBe(enrichCalls + 1);
    expect(await balance()).toBe(before - 20);

    const ledger = ledgerAnswer.parse((await t.admin.get("/api/ledger?person=bo")).body);
    expect(ledger.entries).toHaveLength(1);
    expect(ledger.entries[0]).toMatchObject({ creditsEstimated: 20, creditsCharged: 20, outcome: "charged" });
    const audit = (await t.admin.get("/api/team/audit")).body as {
      entries: { actor: string; action: string; target: string }[];
    };
    expect(audit.entries[0]).toMatchObject({ actor: "ada", action: "approval.approve", target: "bo" });
  });

  it("an approval asks for what the buyer's review showed: people on a do-not-contact list are not in it", async () => {
    const ids = fresh(10);
    const list = await t.admin.post<{ id: string }>("/api/suppression", {
      name: "Asked not to be contacted",
      text: ids.slice(0, 2).join("\n"),
    });
    expect(list.status, list.text).toBe(201);
    try {
      const review = await t.buyer.post<{ credits: number; suppressed: string[]; toBuy: string[] }>(
        "/api/purchases/review",
        { kind: "enrich", personIds: ids, reveal: "email" },
      );
      expect(review.status, review.text).toBe(200);
      expect(review.body).toMatchObject({ credits: 16, suppressed: ids.slice(0, 2) });
      const asked = await enrich(t.buyer, ids);
      expect(asked.status).toBe(202);
      expect(asked.body.detail).toMatch(/up to 16 credits, above your approval threshold of 10/);
      const approval = approvalSchema.parse(asked.body.approvalRequested);
      expect(approval.creditsEstimated).toBe(review.body.credits);
      // Left waiting: denied, so that it holds nothing for the tests after it.
      expect((await t.admin.post(`/api/approvals/${approval.id}/deny`, { reason: "test" })).status).toBe(200);
    } finally {
      await t.admin.call("DELETE", `/api/suppression/${list.body.id}`);
    }
  });

  it("denied: the same key is refused from then on, nothing sent", async () => {
    const ids = fresh(10);
    const key = newKey();
    const before = await balance();
    const enrichCalls = sent(ENRICH).length;
    const asked = await enrich(t.buyer, ids, key);
    expect(asked.status).toBe(202);
    const { id } = approvalSchema.parse(asked.body.approvalRequested);
    expect((await t.admin.post(`/api/approvals/${id}/deny`, { extra: true })).status).toBe(422);
    const denied = await t.admin.post(`/api/approvals/${id}/deny`, { reason: "Not this month" });
    expect(denied.status).toBe(200);
    expect(approvalSchema.parse(denied.body)).toMatchObject({
      state: "denied",
      decidedBy: "ada",
      outcome: "Denied: Not this month",
    });
    const refused = await enrich(t.buyer, ids, key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "APPROVAL_DENIED",
      detail:
        'ada denied this purchase ("Not this month"), so nothing was sent and nothing charged. Ask an admin before buying it with a new request.',
    });
    expect((await di.post(`/api/approvals/${id}/approve`)).status).toBe(409);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(await balance()).toBe(before);
  });

  it("nobody approves their own request; another admin does", async () => {
    const ids = fresh(5);
    const key = newKey();
    const asked = await enrich(di, ids, key);
    expect(asked.status).toBe(202);
    const { id } = approvalSchema.parse(asked.body.approvalRequested);
    const own = await di.post(`/api/approvals/${id}/approve`);
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({
      detail: "You asked for this purchase, so another admin must approve it.",
    });
    const before = await balance();
    expect(approvalSchema.parse((await t.admin.post(`/api/approvals/${id}/approve`)).body).state).toBe("ran");
    expect(await balance()).toBe(before - 10);
  });

  it("an approval checks the caps again: over them now, it is refused and keeps waiting", async () => {
    const ids = fresh(10);
    const asked = await enrich(t.buyer, ids);
    expect(asked.status).toBe(202);
    const { id } = approvalSchema.parse(asked.body.approvalRequested);
    await putCaps(t.admin, { people: [person("bo", 30, 10)] });
    const before = await balance();
    const enrichCalls = sent(ENRICH).length;
    const refused = await t.admin.post(`/api/approvals/${id}/approve`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "CAP_REACHED",
      detail:
        "This purchase may cost up to 20 credits; bo's monthly cap is 30 and 20 are already spent this month, so 10 are left. Nothing was sent.",
    });
    const [still] = approvalsAnswer.parse((await t.buyer.get("/api/approvals?state=waiting")).body).approvals;
    expect(still?.id).toBe(id);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(await balance()).toBe(before);
  });

  it("an export above the threshold is priced with the service's estimate and waits; approved, it starts once as the requester's", async () => {
    await putCaps(t.admin, { people: [person("bo", 100, 10)] });
    const exports = sent(EXPORT).length;
    const key = newKey();
    const body = { filter: withEmail, maxRows: 30, reveal: "none", name: "Germans" };
    const asked = await t.buyer.post("/api/v2/contact/export", body, { idempotencyKey: key });
    expect(asked.status).toBe(202);
    const approval = approvalSchema.parse((asked.body as { approvalRequested: unknown }).approvalRequested);
    expect(approval).toMatchObject({
      operation: "exportStart",
      creditsEstimated: 30,
      audienceName: "Germans",
    });
    expect(sent(EXPORT).length).toBe(exports);
    expect(sent("/v2/contact/export/estimate").length).toBeGreaterThan(0);

    const before = await balance();
    const approved = await t.admin.post(`/api/approvals/${approval.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approvalSchema.parse(approved.body)).toMatchObject({
      state: "ran",
      decidedBy: "ada",
      outcome: "Export started: up to 30 credits, charged when it completes.",
    });
    expect(sent(EXPORT).length).toBe(exports + 1);
    // Sent as the requester's export would have been: its name tagged by the journal.
    expect(JSON.parse(sent(EXPORT).at(-1)!.body).name).toMatch(/^Germans \[ab-[0-9a-f]{16}\]$/);
    const again = await t.buyer.post<{ exportId: string }>("/api/v2/contact/export", body, {
      idempotencyKey: key,
    });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(sent(EXPORT).length).toBe(exports + 1);
    const jobs = (await t.admin.get("/api/team/jobs?kind=export")).body as {
      jobs: { jobId: string; person: string }[];
    };
    expect(jobs.jobs).toContainEqual(expect.objectContaining({ jobId: again.body.exportId, person: "bo" }));
    // Charged once, on completion.
    let status = "QUEUED";
    for (let i = 0; i < 100 && status !== "COMPLETED"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ({ status } = await sandboxCall<{ status: string }>(
        "GET",
        `/v2/contact/export/${again.body.exportId}`,
      ));
    }
    expect(status).toBe("COMPLETED");
    expect(await balance()).toBe(before - 30);
    // The approval says what its purchase came to now, not what it was when approved: a status
    // read through the proxy settles the export, and the list reads the sentence from the ledger.
    expect((await t.buyer.get(`/api/v2/contact/export/${again.body.exportId}`)).status).toBe(200);
    await expect
      .poll(async () => {
        const list = (await t.admin.get("/api/approvals")).body as {
          approvals: { id: string; outcome: string }[];
        };
        return list.approvals.find((a) => a.id === approval.id)?.outcome;
      })
      .toMatch(/^Export completed: \d+ rows, 30 credits charged\.$/);
  });

  it("a preview is priced with the price table on its limit", async () => {
    await putCaps(t.admin, { people: [person("di", 5, null)] });
    const previews = sent("/v2/contact/preview").length;
    const refused = await di.post(
      "/api/v2/contact/preview",
      { filter: withEmail, limit: 3, reveal: "email" },
      { idempotencyKey: newKey() },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      detail: expect.stringMatching(/^This purchase may cost up to 6 credits; your monthly cap is 5 /),
    });
    expect(sent("/v2/contact/preview").length).toBe(previews);
  });

  it("the month's summary: admins read everyone's, others only their own", async () => {
    const all = spendingSummary.parse((await t.admin.get("/api/spending/summary")).body);
    expect(all.people.map((p) => p.name)).toEqual(["ada", "bo", "cy", "di"]);
    // bo's enrich (20 charged) and the approved export (30 estimated, pending until it completes).
    expect(all.people.find((p) => p.name === "bo")).toMatchObject({
      spent: 50,
      cap: 100,
      approvalThreshold: 10,
    });
    const mine = spendingSummary.parse((await t.analyst.get("/api/spending/summary")).body);
    expect(mine.people).toEqual([{ name: "cy", spent: 0, cap: null, approvalThreshold: null, unknown: 0 }]);
    expect((await t.analyst.get("/api/spending/summary?month=2026-13")).status).toBe(422);
    expect((await t.analyst.get("/api/spending/summary?person=bo")).status).toBe(422);
    const old = spendingSummary.parse((await t.admin.get("/api/spending/summary?month=2001-01")).body);
    expect(old.team.spent).toBe(0);
  });

  it("the ledger as CSV: a header in plain words, one row per entry, the same rules as the ledger", async () => {
    const csv = await t.admin.get("/api/ledger.csv?person=bo");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="ledger-bo.csv"');
    const lines = csv.text.split("\r\n");
    expect(lines.at(-1)).toBe("");
    expect(lines[0]).toBe(LEDGER_CSV_HEADER.join(","));
    // Newest first: the approved export (pending), then the enrich.
    expect(lines).toHaveLength(4);
    expect(lines[1]!.split(",").slice(1, 3)).toEqual(["bo", "Export"]);
    // The export's filter in words for finance, and as JSON for a machine, in a column of its own.
    const exportCells = Papa.parse<string[]>(lines[1]!).data[0]!;
    expect(exportCells[4]).toBe('Country is "Germany" and has an email');
    expect(JSON.parse(exportCells[5]!)).toMatchObject({ type: "group" });
    const cells = lines[2]!.split(",");
    // Audience, filter and what it was for are blank for an Enrich of ids.
    expect(cells.slice(1, 4)).toEqual(["bo", "Enrich", ""]);
    expect(cells.slice(4, 7)).toEqual(["", "", ""]);
    expect(cells.slice(7)).toEqual(["10", "0", "20", "20", "Charged", cells[12]!]);
    expect((await t.buyer.get("/api/ledger.csv?person=ada")).status).toBe(403);
    const own = await t.analyst.get("/api/ledger.csv");
    expect(own.text).toBe(`${LEDGER_CSV_HEADER.join(",")}\r\n`);
  });

  it("a request whose requester can no longer buy is not run when approved", async () => {
    const asked = await enrich(t.buyer, fresh(10));
    expect(asked.status).toBe(202);
    const { id } = approvalSchema.parse(asked.body.approvalRequested);
    expect((await t.admin.call("PUT", "/api/team/people/bo", { role: "analyst" })).status).toBe(200);
    const enrichCalls = sent(ENRICH).length;
    const refused = await t.admin.post(`/api/approvals/${id}/approve`);
    expect(refused.status).toBe(409);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    const [still] = approvalsAnswer.parse((await t.admin.get("/api/approvals?state=waiting")).body).approvals;
    expect(still?.id).toBe(id);
  });

  it("an approved purchase that ran is not run again once the journal has let its answer go", async () => {
    const other = await startTeam({
      upstream,
      env: { SANDBOX_KEY: PAYG, ...FAST, IDEMPOTENCY_TTL_MS: "1000" },
    });
    try {
      await putCaps(other.admin, { people: [person("bo", null, 10)] });
      const ids = fresh(10);
      const key = newKey();
      const asked = await enrich(other.buyer, ids, key);
      expect(asked.status).toBe(202);
      const { id } = approvalSchema.parse(asked.body.approvalRequested);
      expect(approvalSchema.parse((await other.admin.post(`/api/approvals/${id}/approve`)).body).state).toBe(
        "ran",
      );
      await new Promise((r) => setTimeout(r, 1500));
      const before = await balance();
      const enrichCalls = sent(ENRICH).length;
      const late = await enrich(other.buyer, ids, key);
      expect(late.status).toBe(409);
      // The ledger holds its run: the key is refused as every bought key is, before any cap or approval.
      expect(late.body).toMatchObject({
        code: "PURCHASE_ALREADY_MADE",
        detail: expect.stringContaining("already made"),
      });
      expect(sent(ENRICH).length).toBe(enrichCalls);
      expect(await balance()).toBe(before);
    } finally {
      await other.server.close();
    }
  });

  it("a cell a spreadsheet would run as a formula is defused; quotes and commas are quoted", () => {
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("line\nbreak")).toBe('"line\nbreak"');
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell("plain")).toBe("plain");
  });
});
