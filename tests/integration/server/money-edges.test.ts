/**
 * The promises of a purchase at their edges, through the proxy over the real sandbox (PAYG), on
 * the embedded database and on the PostgreSQL server:
 * - a do-not-contact list holds when the day's free sample budget is nearly spent (the check
 *   counts, it does not list, so no budget can shorten it);
 * - an address on a list keeps its person out of a purchase before anything is paid, even for a
 *   person the team never bought;
 * - a key whose purchase is in the ledger is never sent again, however old;
 * - the same new people bought by two buyers at once (different keys) are paid once, by id or by
 *   address; an address the team owns is served from its store, in any case.
 * The sandbox's own balance is the judge: the proxy is not trusted to report what it spends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPEND_CODES } from "../../../src/contract/errors";
import { ledgerAnswer } from "../../../src/contract/ledger";
import { enrichReview } from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  sandboxCall as callSandbox,
  inject,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";
import { signIn, startTeam, type Team } from "../../support/team";

const PAYG = "sbx_payg_demo";
const AYCE = "sbx_ayce_demo";
/** Each key's free sample rows a day: enough for the set-up (on AYCE), few enough to run out. */
const VIEW_BUDGET = 400;
const TTL_MS = 1500;

type Row = Record<string, unknown>;

let sandbox: Sandbox;
const upstream = recording(async (request) => sandbox.fetch(request));
let team: Team;
/** Company domains with people in the dataset, and some of their people (ids, emails known). */
let companies: { domain: string; ids: string[] }[];
const postgres = inject("postgresUrl");

const onSandbox = <T>(key: string, method: string, pathname: string, body?: unknown) =>
  callSandbox<T>(sandbox, key, method, pathname, body);
const balance = async () => (await onSandbox<{ credits: number }>(PAYG, "GET", "/v2/credits")).credits;
const ofDomain = (domain: string) => ({
  type: "group",
  op: "AND",
  children: [{ type: "condition", column: "DOMAIN_ORG", operator: "eq", value: domain }],
});

let keyNumber = 0;
const newKey = () => `edge-${++keyNumber}-${Date.now()}`;

const enrich = (person: Team["buyer"], personIds: string[], key = newKey(), reveal = "none") =>
  person.post<{ rows: Row[]; creditsCharged: number; notFound: string[] }>(
    "/api/v2/contact/enrich",
    { personIds, reveal, columns: ["RBID_PAO", "DOMAIN_ORG"] },
    { idempotencyKey: key },
  );

const enrichByEmail = (person: Team["buyer"], emails: string[], reveal = "email", key = newKey()) =>
  person.post<{ rows: Row[]; creditsCharged: number; notFound: string[] }>(
    "/api/v2/contact/enrich",
    { emails, reveal, columns: ["RBID_PAO", "DOMAIN_ORG"] },
    { idempotencyKey: key },
  );

/** These people's addresses, looked up on the other key (nothing the proxy's key pays for). */
const emailsOf = async (ids: string[]) => {
  const { rows } = await onSandbox<{ rows: Row[] }>(AYCE, "POST", "/v2/contact/enrich", {
    personIds: ids,
    reveal: "email",
    columns: ["RBID_PAO"],
  });
  return rows.map((r) => String(r.EMAIL_ADDRESS_PER));
};
const idsOf = (rows: Row[]) => rows.map((r) => String(r.RBID_PAO)).sort();

beforeAll(async () => {
  ({ sandbox } = await startSandbox({ viewBudget: VIEW_BUDGET }));
  team = await startTeam({
    upstream,
    env: {
      SANDBOX_KEY: PAYG,
      UPSTREAM_RATE_PER_MIN: "100000",
      CACHE_TTL_MS: "0",
      IDEMPOTENCY_TTL_MS: String(TTL_MS),
    },
  });
  // The set-up looks on another key, so that the proxy's key keeps its own budget.
  const sample = await onSandbox<{ rows: Row[] }>(AYCE, "POST", "/v2/contact/view", {
    filter: {
      type: "group",
      children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
    },
    columns: ["RBID_PAO", "DOMAIN_ORG"],
    limit: 100,
  });
  const domains = [...new Set(sample.rows.map((r) => String(r.DOMAIN_ORG)))];
  companies = [];
  for (const domain of domains) {
    if (companies.length === 9) break;
    const { rows } = await onSandbox<{ rows: Row[] }>(AYCE, "POST", "/v2/contact/view", {
      filter: ofDomain(domain),
      columns: ["RBID_PAO", "hasEmail"],
      limit: 20,
    });
    const withEmail = rows.filter((r) => r.hasEmail === true).map((r) => String(r.RBID_PAO));
    if (withEmail.length >= 5) companies.push({ domain, ids: withEmail });
  }
  expect(companies.length).toBe(9);
}, 120_000);

afterAll(async () => {
  await team?.server.close();
  await sandbox?.close();
});

describe("a purchase's promises at its edges", () => {
  it("a do-not-contact list holds with 2 free sample rows left today: nothing delivered, nothing charged", async () => {
    const [listed, other] = [companies[0]!, companies[1]!];
    const made = await team.buyer.post("/api/suppression", { name: "Competitor", text: listed.domain });
    expect(made.status, made.text).toBe(201);
    // An afternoon in the Builder: the proxy's key has 2 sample rows left today.
    let left = VIEW_BUDGET;
    while (left > 2) {
      const limit = Math.min(100, left - 2);
      const { rows } = await onSandbox<{ rows: Row[] }>(PAYG, "POST", "/v2/contact/view", {
        filter: null,
        columns: ["RBID_PAO"],
        limit,
      });
      left -= rows.length;
    }

    const asked = [...listed.ids.slice(0, 5), ...other.ids.slice(0, 2)];
    const review = enrichReview.parse(
      (await team.buyer.post("/api/purchases/review", { kind: "enrich", personIds: asked, reveal: "none" }))
        .body,
    );
    expect(review.suppressed).toEqual(listed.ids.slice(0, 5));
    expect(review.toBuy).toEqual(other.ids.slice(0, 2));

    const before = await balance();
    const answer = await enrich(team.buyer, asked);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.rows.map((r) => r.RBID_PAO)).toEqual(other.ids.slice(0, 2));
    expect(await balance()).toBe(before - 2);
  });

  it("an address on a list keeps a person the team never bought out of the purchase: not bought, not charged", async () => {
    const [known, other] = [companies[2]!, companies[3]!];
    // Their addresses learned elsewhere (here: on another account), put on the team's list.
    const learned = await onSandbox<{ rows: Row[] }>(AYCE, "POST", "/v2/contact/enrich", {
      personIds: known.ids.slice(0, 3),
      reveal: "email",
      columns: ["RBID_PAO", "EMAIL_ADDRESS_PER"],
    });
    const emails = learned.rows.map((r) => String(r.EMAIL_ADDRESS_PER));
    expect(emails).toHaveLength(3);
    const made = await team.buyer.post("/api/suppression", { name: "Opted out", text: emails.join("\n") });
    expect(made.status, made.text).toBe(201);

    const asked = [...known.ids.slice(0, 3), ...other.ids.slice(0, 2)];
    const review = enrichReview.parse(
      (await team.buyer.post("/api/purchases/review", { kind: "enrich", personIds: asked, reveal: "email" }))
        .body,
    );
    expect(review.suppressed).toEqual(known.ids.slice(0, 3));
    expect(review.credits).toBe(4);

    const before = await balance();
    const answer = await enrich(team.buyer, asked, newKey(), "email");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.rows.map((r) => r.RBID_PAO)).toEqual(other.ids.slice(0, 2));
    // Two people, each with an email revealed: 4 credits, nothing for the three on the list.
    expect(await balance()).toBe(before - 4);
  });

  it("a key whose purchase is in the ledger is never sent again, after the replay window too", async () => {
    const ids = companies[4]!.ids.slice(0, 2);
    const key = newKey();
    const before = await balance();
    const first = await enrich(team.buyer, ids, key);
    expect(first.status, first.text).toBe(200);
    expect(await balance()).toBe(before - 2);
    const replay = await enrich(team.buyer, ids, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    await sleep(TTL_MS + 500);
    const late = await enrich(team.buyer, ids, key);
    expect(late.status, late.text).toBe(409);
    expect(late.body).toMatchObject({ code: SPEND_CODES.alreadyBought });
    expect(JSON.stringify(late.body)).toMatch(/already made/);
    // The same for a Preview (a purchase by filter), and for a key sent by a second tab.
    const previewKey = newKey();
    const preview = () =>
      team.buyer.post(
        "/api/v2/contact/preview",
        { filter: ofDomain(companies[4]!.domain), columns: ["RBID_PAO"], limit: 1, reveal: "none" },
        { idempotencyKey: previewKey },
      );
    expect((await preview()).status).toBe(200);
    const afterPreview = await balance();
    await sleep(TTL_MS + 500);
    const [again, twice] = await Promise.all([preview(), preview()]);
    expect([again.status, twice.status]).toEqual([409, 409]);
    expect(await balance()).toBe(afterPreview);
    expect(afterPreview).toBe(before - 3);
  });

  it("the same 5 new people bought by two buyers at once are paid once; the second gets them as the team's", async () => {
    const ids = companies[5]!.ids.slice(0, 5);
    const before = await balance();
    const [a, b] = await Promise.all([enrich(team.admin, ids), enrich(team.buyer, ids)]);
    expect([a.status, b.status], `${a.text}\n${b.text}`).toEqual([200, 200]);
    expect(a.body.rows.map((r) => r.RBID_PAO)).toEqual(ids);
    expect(b.body.rows.map((r) => r.RBID_PAO)).toEqual(ids);
    expect(await balance()).toBe(before - 5);
    const ledger = ledgerAnswer.parse((await team.admin.get("/api/ledger")).body);
    const theirs = ledger.entries
      .filter((e) => e.operation === "enrich" && ["ada", "bo"].includes(e.person))
      .slice(0, 2);
    expect(theirs.map((e) => e.creditsCharged).sort()).toEqual([0, 5]);
    expect(theirs.map((e) => e.rowsFree).sort()).toEqual([0, 5]);
  });

  it("the same 5 addresses bought by two buyers at once are paid once; asked again in capitals, they are the team's", async () => {
    const ids = companies[7]!.ids.slice(0, 5);
    const emails = await emailsOf(ids);
    expect(emails).toHaveLength(5);
    const before = await balance();
    const [a, b] = await Promise.all([enrichByEmail(team.admin, emails), enrichByEmail(team.buyer, emails)]);
    expect([a.status, b.status], `${a.text}\n${b.text}`).toEqual([200, 200]);
    expect(idsOf(a.body.rows)).toEqual([...ids].sort());
    expect(idsOf(b.body.rows)).toEqual([...ids].sort());
    // Each row 1 credit and 1 for its revealed address, once.
    expect(await balance()).toBe(before - 10);
    expect([a.body.creditsCharged, b.body.creditsCharged].sort()).toEqual([0, 10]);

    const again = await enrichByEmail(
      team.buyer,
      emails.map((e) => e.toUpperCase()),
      "none",
    );
    expect(again.status, again.text).toBe(200);
    expect(idsOf(again.body.rows)).toEqual([...ids].sort());
    expect(again.body.creditsCharged).toBe(0);
    // Served as asked: bought with the address revealed, delivered now without it.
    expect(again.body.rows.every((r) => !("EMAIL_ADDRESS_PER" in r))).toBe(true);
    expect(await balance()).toBe(before - 10);
  });
});

describe.skipIf(!postgres)("two proxy instances on one PostgreSQL", () => {
  let second: ProxyServer;
  beforeAll(async () => {
    second = await startProxy(upstream, {
      env: {
        SANDBOX_KEY: PAYG,
        UPSTREAM_RATE_PER_MIN: "100000",
        CACHE_TTL_MS: "0",
        SIGN_IN_DELAY_MS: "0",
        DATABASE_URL: team.server.config.databaseUrl!,
      },
    });
  });
  afterAll(async () => {
    await second?.close();
  });

  it("the same 5 new people bought on both at once are paid once", async () => {
    const ids = companies[6]!.ids.slice(0, 5);
    const onSecond = await signIn(second.url, "bo");
    const before = await balance();
    const [a, b] = await Promise.all([enrich(team.admin, ids), enrich(onSecond, ids)]);
    expect([a.status, b.status], `${a.text}\n${b.text}`).toEqual([200, 200]);
    expect(b.body.rows.map((r) => r.RBID_PAO)).toEqual(ids);
    expect(a.body.rows.map((r) => r.RBID_PAO)).toEqual(ids);
    expect(await balance()).toBe(before - 5);
  });

  it("the same 5 addresses bought on both at once are paid once", async () => {
    const emails = await emailsOf(companies[8]!.ids.slice(0, 5));
    const onSecond = await signIn(second.url, "bo");
    const before = await balance();
    const [a, b] = await Promise.all([enrichByEmail(team.admin, emails), enrichByEmail(onSecond, emails)]);
    expect([a.status, b.status], `${a.text}\n${b.text}`).toEqual([200, 200]);
    expect(idsOf(a.body.rows)).toEqual(idsOf(b.body.rows));
    expect(a.body.rows).toHaveLength(5);
    expect(await balance()).toBe(before - 10);
  });
});
