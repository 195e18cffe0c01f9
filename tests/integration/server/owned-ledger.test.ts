/**
 * Contacts the team owns, and the ledger, through the proxy over the real sandbox (PAYG), the
 * sandbox's own balance read after every step: the same people enriched twice cost once and the
 * second time nothing reaches the service; only the people not owned are sent and charged; a wider
 * reveal, or a retention passed, buys again; a replay charges nothing; the owned rows and the
 * ledger's row are in the journal's commit (a commit forced to fail writes neither); the ledger's
 * sum equals the balance's change after a session of Enrich and Preview (exports are not in the
 * ledger yet: they are charged when they complete). Run on PGlite and on PostgreSQL.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerAnswer } from "../../../src/contract/ledger";
import { AUDIENCE_HEADER, audienceHeaderValue } from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  type Browser,
  browser,
  sandboxCall as callSandbox,
  type ProxyServer,
  recording,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";
import { startTeam, type Team } from "../../support/team";

const PAYG = "sbx_payg_demo";
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };
const germany = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

let sandbox: Sandbox;
const upstream = recording(async (request) => sandbox.fetch(request));
const ENRICH = "/v2/contact/enrich";
const sent = (pathname: string) => upstream.seen.filter((s) => s.path === pathname);

let ids: string[];
let keyNumber = 0;
const newKey = () => `owned-ledger-${++keyNumber}-${Date.now()}`;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  const view = await sandboxCall<{ rows: { RBID_PAO: string }[] }>("POST", "/v2/contact/view", {
    filter: germany,
    limit: 40,
  });
  ids = view.rows.map((r) => r.RBID_PAO);
  expect(new Set(ids).size).toBe(40);
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
  matched: number;
  notFound: string[];
  creditsCharged: number;
  creditsRemaining: number;
}

function enrich(client: Browser, body: Record<string, unknown>, key = newKey()) {
  return client.post<Enriched>("/api/v2/contact/enrich", body, { idempotencyKey: key });
}

describe("Enrich through the team's store", () => {
  let server: ProxyServer;
  let api: Browser;
  beforeAll(async () => {
    server = await startProxy(upstream, { env: { SANDBOX_KEY: PAYG, ...FAST } });
    api = browser(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("the same 5 people enriched twice cost once: the second answer has the 5 rows, charges 0, and nothing is sent", async () => {
    const five = ids.slice(0, 5);
    const before = await balance();
    const first = await enrich(api, { personIds: five, reveal: "email" });
    expect(first.status).toBe(200);
    expect(first.body.matched).toBe(5);
    expect(first.body.creditsCharged).toBeGreaterThan(0);
    expect(await balance()).toBe(before - first.body.creditsCharged);

    const enrichCalls = sent(ENRICH).length;
    const second = await enrich(api, { personIds: five, reveal: "email" });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      rows: first.body.rows,
      matched: 5,
      notFound: [],
      creditsCharged: 0,
      creditsRemaining: before - first.body.creditsCharged,
    });
    expect(second.body.rows.map((r) => r.RBID_PAO)).toEqual(five);
    expect(sent(ENRICH).length, "no enrich reached the service").toBe(enrichCalls);
    expect(await balance()).toBe(before - first.body.creditsCharged);
  });

  it("an owned id pasted in capitals or with spaces is the same contact: served free, nothing sent", async () => {
    const five = ids.slice(0, 5); // owned by the test above
    const enrichCalls = sent(ENRICH).length;
    const before = await balance();
    const pasted = five.map((id, i) => (i % 2 === 0 ? ` ${id.toUpperCase()} ` : id));
    const again = await enrich(api, { personIds: pasted, reveal: "email" });
    expect(again.status).toBe(200);
    expect(again.body.creditsCharged).toBe(0);
    expect(again.body.rows.map((r) => r.RBID_PAO)).toEqual(five);
    expect(sent(ENRICH).length, "no enrich reached the service").toBe(enrichCalls);
    expect(await balance()).toBe(before);
  });

  it("3 owned + 2 new: only the 2 are sent and charged, rows in the requested order", async () => {
    const owned = ids.slice(5, 8);
    const fresh = ids.slice(8, 10);
    expect((await enrich(api, { personIds: owned, reveal: "email" })).status).toBe(200);
    const asked = [fresh[0]!, owned[0]!, owned[1]!, fresh[1]!, owned[2]!];
    const before = await balance();
    const enrichCalls = sent(ENRICH).length;
    const answer = await enrich(api, { personIds: asked, reveal: "email" });
    expect(answer.status).toBe(200);
    expect(sent(ENRICH).length).toBe(enrichCalls + 1);
    expect(JSON.parse(sent(ENRICH).at(-1)!.body).personIds).toEqual(fresh);
    expect(answer.body.rows.map((r) => r.RBID_PAO)).toEqual(asked);
    expect(answer.body.matched).toBe(5);
    // 2 rows, each with its email revealed if present: at most 4 credits.
    expect(answer.body.creditsCharged).toBeGreaterThanOrEqual(2);
    expect(answer.body.creditsCharged).toBeLessThanOrEqual(4);
    expect(await balance()).toBe(before - answer.body.creditsCharged);
    expect(answer.body.creditsRemaining).toBe(before - answer.body.creditsCharged);
  });

  it("a wider reveal than owned buys again; a narrower one is served free without what it does not reveal", async () => {
    const two = ids.slice(10, 12);
    expect((await enrich(api, { personIds: two, reveal: "email" })).status).toBe(200);
    let before = await balance();
    let enrichCalls = sent(ENRICH).length;
    const wider = await enrich(api, { personIds: two, reveal: "both" });
    expect(wider.status).toBe(200);
    expect(sent(ENRICH).length).toBe(enrichCalls + 1);
    expect(JSON.parse(sent(ENRICH).at(-1)!.body).personIds).toEqual(two);
    expect(wider.body.creditsCharged).toBeGreaterThanOrEqual(2);
    expect(await balance()).toBe(before - wider.body.creditsCharged);

    before = await balance();
    enrichCalls = sent(ENRICH).length;
    const narrower = await enrich(api, { personIds: two, reveal: "none" });
    expect(narrower.status).toBe(200);
    expect(narrower.body.creditsCharged).toBe(0);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(await balance()).toBe(before);
    for (const row of narrower.body.rows) {
      expect(row).not.toHaveProperty("EMAIL_ADDRESS_PER");
      expect(row).not.toHaveProperty("CELLPHONE_PER");
    }
    expect(narrower.body.rows.map((r) => r.RBID_PAO)).toEqual(two);
  });

  it("other columns than owned buy again (the stored row has not got them)", async () => {
    const one = ids.slice(12, 13);
    expect((await enrich(api, { personIds: one, reveal: "email" })).status).toBe(200);
    const enrichCalls = sent(ENRICH).length;
    const other = await enrich(api, {
      personIds: one,
      reveal: "email",
      columns: ["RBID_PAO", "COUNTRY_NAME_PER"],
    });
    expect(other.status).toBe(200);
    expect(sent(ENRICH).length).toBe(enrichCalls + 1);
    expect(other.body.creditsCharged).toBeGreaterThan(0);
  });

  it("a replay with the same Idempotency-Key returns the same merged answer and charges nothing", async () => {
    const owned = ids.slice(13, 15);
    expect((await enrich(api, { personIds: owned, reveal: "email" })).status).toBe(200);
    const body = { personIds: [...owned, ids[15]!], reveal: "email" };
    const key = newKey();
    const first = await enrich(api, body, key);
    expect(first.status).toBe(200);
    expect(first.body.rows.map((r) => r.RBID_PAO)).toEqual(body.personIds);
    const before = await balance();
    const enrichCalls = sent(ENRICH).length;
    const again = await enrich(api, body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(await balance()).toBe(before);
  });

  it("an owned person's address is served free, in any case; one bought without its address revealed is sent", async () => {
    const [row] = (await enrich(api, { personIds: [ids[16]!], reveal: "email" })).body.rows;
    const email = row?.EMAIL_ADDRESS_PER;
    if (typeof email !== "string") return; // this person has no email in the dataset
    const enrichCalls = sent(ENRICH).length;
    const byEmail = await enrich(api, { emails: [` ${email.toUpperCase()}`], reveal: "email" });
    expect(byEmail.status).toBe(200);
    expect(sent(ENRICH).length).toBe(enrichCalls);
    expect(byEmail.body.creditsCharged).toBe(0);
    expect(byEmail.body.rows.map((r) => r.RBID_PAO)).toEqual([ids[16]]);

    // Bought with nothing revealed, the stored row has no address to be found by: bought again.
    const [hidden] = (await enrich(api, { personIds: [ids[36]!], reveal: "none" })).body.rows;
    expect(hidden).toBeDefined();
    const [shown] = (
      await callSandbox<{ rows: Record<string, unknown>[] }>(
        sandbox,
        "sbx_ayce_demo",
        "POST",
        "/v2/contact/enrich",
        {
          personIds: [ids[36]!],
          reveal: "email",
        },
      )
    ).rows;
    if (typeof shown?.EMAIL_ADDRESS_PER !== "string") return;
    const callsBefore = sent(ENRICH).length;
    const again = await enrich(api, { emails: [shown.EMAIL_ADDRESS_PER], reveal: "none" });
    expect(again.status).toBe(200);
    expect(sent(ENRICH).length).toBe(callsBefore + 1);
  });
});

describe("retention", () => {
  it("after the retention (0 days here) the same people are bought again", async () => {
    const server = await startProxy(upstream, {
      env: { SANDBOX_KEY: PAYG, ...FAST, OWNED_RETENTION_DAYS: "0" },
    });
    try {
      const api = browser(server.url);
      const two = ids.slice(17, 19);
      const before = await balance();
      const first = await enrich(api, { personIds: two, reveal: "email" });
      const enrichCalls = sent(ENRICH).length;
      const second = await enrich(api, { personIds: two, reveal: "email" });
      expect(second.status).toBe(200);
      expect(sent(ENRICH).length).toBe(enrichCalls + 1);
      expect(second.body.creditsCharged).toBe(first.body.creditsCharged);
      expect(await balance()).toBe(before - 2 * first.body.creditsCharged);
    } finally {
      await server.close();
    }
  });
});

describe("one transaction with the journal's commit", () => {
  it("a commit that fails writes neither the owned rows nor the ledger's row; the retry hears OUTCOME_UNKNOWN, recorded once", async () => {
    const server = await startProxy(upstream, { env: { SANDBOX_KEY: PAYG, ...FAST } });
    const db = server.proxy.database.db;
    try {
      const api = browser(server.url);
      await sql`create function refuse_done() returns trigger language plpgsql as $$
        begin
          if new.state = 'done' then raise exception 'commit refused by the test'; end if;
          return new;
        end $$`.execute(db);
      await sql`create trigger refuse_done before update on spend_journal
        for each row execute function refuse_done()`.execute(db);
      const three = ids.slice(19, 22);
      const key = newKey();
      const before = await balance();
      const answer = await enrich(api, { personIds: three, reveal: "email" }, key);
      // The service charged and answered; the answer is still returned, its commit failed.
      expect(answer.status).toBe(200);
      expect(await balance()).toBe(before - answer.body.creditsCharged);
      expect(server.logs.some((l) => l.includes("spend journal: answer not recorded"))).toBe(true);
      const owned = await db
        .selectFrom("owned_contacts")
        .select("rbid_pao")
        .where("rbid_pao", "in", three)
        .execute();
      expect(owned).toEqual([]);
      expect(await db.selectFrom("ledger").selectAll().execute()).toEqual([]);
      const entry = await db.selectFrom("spend_journal").select("state").executeTakeFirst();
      expect(entry?.state).toBe("pending");

      await sql`drop trigger refuse_done on spend_journal`.execute(db);
      const enrichCalls = sent(ENRICH).length;
      const retry = await enrich(api, { personIds: three, reveal: "email" }, key);
      expect(retry.status).toBe(409);
      expect(retry.body).toMatchObject({ code: "OUTCOME_UNKNOWN" });
      expect(sent(ENRICH).length).toBe(enrichCalls);
      const again = await enrich(api, { personIds: three, reveal: "email" }, key);
      expect(again.status).toBe(409);
      const ledger = await db.selectFrom("ledger").selectAll().execute();
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ outcome: "unknown", credits_charged: null, operation: "enrich" });
    } finally {
      await server.close();
    }
  });
});

describe("the ledger", () => {
  let team: Team;
  beforeAll(async () => {
    team = await startTeam({ upstream, env: { SANDBOX_KEY: PAYG, ...FAST } });
  });
  afterAll(async () => {
    await team?.server.close();
  });

  it("its sum equals the sandbox's balance change after a session of Enrich and Preview, owned rows free", async () => {
    const before = await balance();
    const steps = [
      () => enrich(team.buyer, { personIds: ids.slice(22, 26), reveal: "email" }),
      () => enrich(team.admin, { personIds: ids.slice(24, 28), reveal: "email" }), // 2 owned
      () => enrich(team.buyer, { personIds: ids.slice(22, 26), reveal: "both" }), // wider: bought
      () => enrich(team.buyer, { personIds: ids.slice(22, 28), reveal: "none" }), // all owned: free
      () =>
        team.buyer.post(
          "/api/v2/contact/preview",
          { filter: germany, limit: 3, reveal: "email" },
          // The saved audience it is bought from, percent-encoded: the ledger's audience name.
          { idempotencyKey: newKey(), headers: { [AUDIENCE_HEADER]: audienceHeaderValue("Köln leads, Q4") } },
        ),
      () =>
        team.admin.post(
          "/api/v2/contact/preview",
          { filter: germany, limit: 2, reveal: "none" },
          { idempotencyKey: newKey() },
        ),
      // A refusal: more than the contract allows is a 422 before the journal (not in the ledger).
    ];
    for (const step of steps) expect((await step()).status).toBe(200);
    const spent = before - (await balance());
    expect(spent).toBeGreaterThan(0);

    const all = await team.admin.get("/api/ledger");
    expect(all.status).toBe(200);
    const ledger = ledgerAnswer.parse(all.body);
    expect(ledger.entries).toHaveLength(6);
    expect(ledger.totals.creditsCharged).toBe(spent);
    expect(ledger.totals.unknown).toBe(0);
    expect(ledger.entries.map((e) => e.operation)).toEqual([
      "preview",
      "preview",
      "enrich",
      "enrich",
      "enrich",
      "enrich",
    ]);
    const [free] = ledger.entries.filter((e) => e.outcome === "free" && e.operation === "enrich");
    expect(free).toMatchObject({ person: "bo", rows: 6, rowsFree: 6, creditsCharged: 0 });
    expect(ledger.entries.find((e) => e.person === "ada" && e.operation === "enrich")).toMatchObject({
      rows: 4,
      rowsFree: 2,
      outcome: "charged",
    });
    const boPreview = ledger.entries.find((e) => e.operation === "preview" && e.person === "bo");
    expect(boPreview?.filter).toEqual(germany);
    expect(boPreview?.audienceName).toBe("Köln leads, Q4");
    expect(
      ledger.entries.find((e) => e.operation === "preview" && e.person === "ada")?.audienceName,
    ).toBeNull();

    const month = new Date().toISOString().slice(0, 7);
    const mine = ledgerAnswer.parse((await team.buyer.get(`/api/ledger?month=${month}`)).body);
    expect(mine.entries.every((e) => e.person === "bo")).toBe(true);
    expect(mine.entries).toHaveLength(4);
    const adas = ledgerAnswer.parse((await team.admin.get("/api/ledger?person=ada")).body);
    expect(adas.entries).toHaveLength(2);
    expect(adas.totals.creditsCharged + mine.totals.creditsCharged).toBe(spent);
    expect((await team.admin.get("/api/ledger?month=2001-01")).body).toMatchObject({
      entries: [],
      totals: { creditsCharged: 0 },
    });

    const refused = await team.buyer.get("/api/ledger?person=ada");
    expect(refused.status).toBe(403);
    expect((await team.analyst.get("/api/ledger")).body).toMatchObject({ entries: [] });
    expect((await team.admin.get("/api/ledger?month=2026-13")).status).toBe(422);
  });

  it("a NUL in a filter value or in the audience's name is no reason to lose the ledger's row", async () => {
    const before = (await team.admin.get("/api/ledger")).body as { entries: unknown[] };
    const filter = {
      type: "group",
      children: [
        { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["Germany", "a\u0000b"] },
      ],
    };
    const bought = await team.buyer.post(
      "/api/v2/contact/preview",
      { filter, limit: 1, reveal: "none" },
      { idempotencyKey: newKey(), headers: { [AUDIENCE_HEADER]: "Nul%00name" } },
    );
    expect(bought.status).toBe(200);
    const ledger = ledgerAnswer.parse((await team.admin.get("/api/ledger")).body);
    expect(ledger.entries).toHaveLength(before.entries.length + 1);
    expect(ledger.entries[0]).toMatchObject({
      operation: "preview",
      audienceName: "Nulname",
      outcome: "charged",
    });
    expect(JSON.stringify(ledger.entries[0]?.filter)).toContain("a\ufffdb");
  });
});
