/**
 * The team's do-not-contact lists, through the proxy over the real sandbox (PAYG): entries read
 * from pasted text or CSV and normalised; buyers and admins manage, analysts read; a suppressed
 * domain never appears in a delivered row of an Export, a Preview or an Enrich (and is not
 * charged); the review counts what is suppressed and says what cannot be applied; the ledger's sum
 * equals the sandbox's balance change after a mixed session including an export. PGlite and PostgreSQL.
 */
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerAnswer } from "../../../src/contract/ledger";
import {
  enrichReview,
  exportReview,
  suppressionEntries,
  suppressionImport,
  suppressionLists,
} from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import { sandboxCall as callSandbox, recording, startSandbox } from "../../support/proxy-server";
import { startTeam, type Team } from "../../support/team";

const PAYG = "sbx_payg_demo";
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };

let sandbox: Sandbox;
const upstream = recording(async (request) => sandbox.fetch(request));
let team: Team;
/** A company domain with people in the dataset, the one put on a list; and a second, not listed. */
let listed: string;
let other: string;
let listedIds: string[];
let otherIds: string[];

type Row = Record<string, unknown>;

/** Straight to the sandbox (PAYG): the proxy is not trusted to report what it spends. */
const sandboxCall = <T>(method: string, pathname: string, body?: unknown) =>
  callSandbox<T>(sandbox, PAYG, method, pathname, body);
const balance = async () => (await sandboxCall<{ credits: number }>("GET", "/v2/credits")).credits;
const ofDomain = (...domains: string[]) => ({
  type: "group",
  op: "AND",
  children: [{ type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: domains }],
});
const count = async (filter: unknown) =>
  (await sandboxCall<{ count: number }>("POST", "/v2/contact/count", { filter })).count;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  team = await startTeam({ upstream, env: { SANDBOX_KEY: PAYG, ...FAST } });
  const sample = await sandboxCall<{ rows: Row[] }>("POST", "/v2/contact/view", {
    filter: {
      type: "group",
      children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
    },
    columns: ["RBID_PAO", "DOMAIN_ORG"],
    limit: 100,
  });
  const domains = [...new Set(sample.rows.map((r) => String(r.DOMAIN_ORG)))];
  const sized = await Promise.all(domains.map(async (d) => ({ d, n: await count(ofDomain(d)) })));
  const big = sized.filter((s) => s.n >= 8).sort((a, b) => b.n - a.n);
  expect(big.length).toBeGreaterThanOrEqual(2);
  listed = big[0]!.d;
  other = big[1]!.d;
  const idsOf = async (d: string) =>
    (
      await sandboxCall<{ rows: Row[] }>("POST", "/v2/contact/view", {
        filter: ofDomain(d),
        columns: ["RBID_PAO", "hasEmail"],
        limit: 100,
      })
    ).rows
      // The View's sample is random: people with an email first, as the email steps need them.
      .sort((a, b) => Number(Boolean(b.hasEmail)) - Number(Boolean(a.hasEmail)))
      .map((r) => String(r.RBID_PAO));
  listedIds = await idsOf(listed);
  otherIds = await idsOf(other);
}, 120_000);
afterAll(async () => {
  await team?.server.close();
  await sandbox?.close();
});

let keyNumber = 0;
const newKey = () => `suppression-${++keyNumber}-${Date.now()}`;

describe("do-not-contact lists", () => {
  let listId: string;

  it("a buyer makes one from pasted text: each value read by its shape and normalised, the rest said line by line", async () => {
    const text = [
      `https://www.${listed.toUpperCase()}/about-us`,
      "Someone.Nobody@Example.ORG",
      "https://linkedin.com/in/Some-Body/",
      "this is not anything",
      "ORG_abc123",
      `${listed}`,
    ].join("\n");
    const made = await team.buyer.post("/api/suppression", { name: "Competitors", text });
    expect(made.status, made.text).toBe(201);
    const answer = suppressionImport.parse(made.body);
    expect(answer.list.counts).toEqual({ domain: 1, companyId: 1, personId: 0, linkedin: 1, email: 1 });
    expect(answer.added).toBe(4);
    expect(answer.duplicates).toBe(1);
    expect(answer.rejected).toEqual([
      { line: 4, value: "this is not anything", reason: expect.stringMatching(/not a contact id/) },
    ]);
    listId = answer.list.id;

    const entries = suppressionEntries.parse(
      (await team.analyst.get(`/api/suppression/${listId}/entries`)).body,
    );
    expect(entries.entries).toEqual(
      expect.arrayContaining([
        { kind: "domain", value: listed.toLowerCase() },
        { kind: "email", value: "someone.nobody@example.org" },
        { kind: "linkedin", value: "https://www.linkedin.com/in/some-body" },
        { kind: "companyId", value: "org_abc123" },
      ]),
    );
    // A CSV with a header row naming the kinds.
    const csv = await team.admin.post(`/api/suppression/${listId}/entries`, {
      text: "Email,Website\nA@B.com,http://www.b-company.com/\n,c-company.com",
    });
    expect(suppressionImport.parse(csv.body)).toMatchObject({ added: 3, rejectedTotal: 0 });

    const lists = suppressionLists.parse((await team.analyst.get("/api/suppression")).body);
    expect(lists.lists.map((l) => [l.name, l.entries, l.createdBy])).toEqual([["Competitors", 7, "bo"]]);
    expect((await team.analyst.post("/api/suppression", { name: "x", text: "a.com" })).status).toBe(403);
    expect((await team.analyst.call("DELETE", `/api/suppression/${listId}`)).status).toBe(403);
  });

  it("a suppressed domain never appears in a delivered row of an Export, a Preview or an Enrich; the ledger's sum is the balance's change", async () => {
    const before = await balance();
    const both = ofDomain(listed, other);
    const listedCount = await count(ofDomain(listed));
    const otherCount = await count(ofDomain(other));

    // The review: audience, suppressed, and what is left to buy; the unmatched email said plainly.
    const review = exportReview.parse(
      (
        await team.analyst.post("/api/purchases/review", {
          kind: "export",
          filter: both,
          maxRows: 1000,
          reveal: "none",
        })
      ).body,
    );
    expect(review).toMatchObject({
      audience: listedCount + otherCount,
      suppressed: listedCount,
      owned: 0,
      rows: otherCount,
    });
    expect(review.notes.join(" ")).toMatch(
      /2 suppressed email addresses match no contact the team has bought/,
    );

    // Preview: only the other domain's people.
    const preview = await team.buyer.post<{ rows: Row[]; creditsCharged: number }>(
      "/api/v2/contact/preview",
      { filter: both, columns: ["RBID_PAO", "DOMAIN_ORG"], limit: 100, reveal: "none" },
      { idempotencyKey: newKey() },
    );
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.rows.length).toBe(Math.min(100, otherCount));
    expect(
      preview.body.rows.filter((r) => String(r.DOMAIN_ORG).toLowerCase() === listed.toLowerCase()),
    ).toEqual([]);

    // Enrich: 4 listed and 3 others asked; the review says so, and only the 3 are bought.
    const asked = [...listedIds.slice(0, 4), ...otherIds.slice(0, 3)];
    const enrichAsk = {
      kind: "enrich",
      personIds: asked,
      reveal: "email",
      columns: ["RBID_PAO", "DOMAIN_ORG", "EMAIL_ADDRESS_PER"],
    };
    const enrichReviewed = enrichReview.parse(
      (await team.buyer.post("/api/purchases/review", enrichAsk)).body,
    );
    expect(enrichReviewed).toMatchObject({
      selected: 7,
      suppressed: listedIds.slice(0, 4),
      toBuy: otherIds.slice(0, 3),
      credits: 6,
    });
    const { kind: _, ...enrichBody } = enrichAsk;
    const enriched = await team.buyer.post<{ rows: Row[]; creditsCharged: number }>(
      "/api/v2/contact/enrich",
      enrichBody,
      {
        idempotencyKey: newKey(),
      },
    );
    expect(enriched.status, enriched.text).toBe(200);
    expect(enriched.body.rows.map((r) => r.RBID_PAO)).toEqual(otherIds.slice(0, 3));
    expect(
      enriched.body.rows.filter((r) => String(r.DOMAIN_ORG).toLowerCase() === listed.toLowerCase()),
    ).toEqual([]);
    // An email on an enrich whose domain is suppressed is not sent either.
    const byEmail = await team.buyer.post<{ rows: Row[]; creditsCharged: number }>(
      "/api/v2/contact/enrich",
      { emails: [`someone@${listed}`], reveal: "none" },
      { idempotencyKey: newKey() },
    );
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.body).toMatchObject({ rows: [], creditsCharged: 0 });

    // Export of both domains, the buyer's columns lacking RBID_PAO: the proxy adds it.
    const started = await team.buyer.post<{ exportId: string; rows: number; credits: number }>(
      "/api/v2/contact/export",
      { filter: both, maxRows: 1000, reveal: "none", columns: ["DOMAIN_ORG"], name: "both domains" },
      { idempotencyKey: newKey() },
    );
    expect(started.status, started.text).toBe(202);
    expect(started.body.rows).toBe(otherCount);
    // Ended, as the sandbox says; the proxy settles it when the export list passes through it.
    for (let i = 0; ; i++) {
      const status = await sandboxCall<{ status: string }>(
        "GET",
        `/v2/contact/export/${started.body.exportId}`,
      );
      if (status.status === "COMPLETED") break;
      expect(i).toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
    }
    const pending = ledgerAnswer.parse((await team.admin.get("/api/ledger")).body).entries[0]!;
    expect(pending).toMatchObject({ operation: "exportStart", outcome: "pending" });
    expect((await team.buyer.get("/api/v2/contact/exports")).status).toBe(200);
    const file = await team.buyer.get(`/api/v2/contact/export/${started.body.exportId}/download`);
    const rows = Papa.parse<Record<string, string>>(file.text, { header: true, skipEmptyLines: true }).data;
    expect(rows.length).toBe(otherCount);
    expect(rows.every((r) => r.RBID_PAO?.startsWith("pao_"))).toBe(true);
    expect(rows.filter((r) => r.DOMAIN_ORG?.toLowerCase() === listed.toLowerCase())).toEqual([]);

    // An owned person's email put on the list leaves them out from then on.
    const email = enriched.body.rows
      .map((r) => r.EMAIL_ADDRESS_PER)
      .find((e) => typeof e === "string" && e.includes("@"));
    expect(typeof email, "an enriched row with its email").toBe("string");
    if (typeof email === "string") {
      const person = enriched.body.rows.find((r) => r.EMAIL_ADDRESS_PER === email)!.RBID_PAO as string;
      await team.buyer.post(`/api/suppression/${listId}/entries`, { text: email.toUpperCase() });
      const again = exportReview.parse(
        (
          await team.buyer.post("/api/purchases/review", {
            kind: "export",
            filter: both,
            maxRows: 1000,
            reveal: "none",
          })
        ).body,
      );
      expect(again.suppressed).toBe(listedCount + 1);
      const alone = await team.buyer.post<{ rows: Row[] }>(
        "/api/v2/contact/preview",
        {
          filter: {
            type: "group",
            children: [{ type: "condition", column: "RBID_PAO", operator: "eq", value: person }],
          },
          limit: 5,
          reveal: "none",
        },
        { idempotencyKey: newKey() },
      );
      expect(alone.body.rows).toEqual([]);
    }

    const spent = before - (await balance());
    expect(spent).toBe(preview.body.creditsCharged + enriched.body.creditsCharged + started.body.credits);
    const ledger = ledgerAnswer.parse((await team.admin.get("/api/ledger")).body);
    expect(ledger.totals.creditsCharged).toBe(spent);
    expect(ledger.entries.find((e) => e.operation === "exportStart")).toMatchObject({
      outcome: "charged",
      creditsCharged: started.body.credits,
    });

    // A person on a list by contact id, asked for by email: the service says who it is only in the
    // row it delivers, and that row is kept from the buyer (bought straight from the sandbox here,
    // to learn the email the buyer would paste).
    const target = otherIds[3]!;
    const known = await sandboxCall<{ rows: Row[] }>("POST", "/v2/contact/enrich", {
      personIds: [target],
      reveal: "email",
    });
    const targetEmail = known.rows[0]?.EMAIL_ADDRESS_PER;
    expect(typeof targetEmail, "the person has an email in the dataset").toBe("string");
    if (typeof targetEmail === "string") {
      await team.buyer.post(`/api/suppression/${listId}/entries`, { text: target });
      const asked = await team.buyer.post<{ rows: Row[] }>(
        "/api/v2/contact/enrich",
        { emails: [targetEmail], reveal: "email", columns: ["RBID_PAO", "EMAIL_ADDRESS_PER"] },
        { idempotencyKey: newKey() },
      );
      expect(asked.status, asked.text).toBe(200);
      expect(asked.body.rows.filter((r) => r.RBID_PAO === target)).toEqual([]);
    }
  });

  it("deleting a list (a buyer may) lifts it, and every change is in the audit list", async () => {
    expect((await team.buyer.call("DELETE", `/api/suppression/${listId}`)).status).toBe(204);
    expect(suppressionLists.parse((await team.analyst.get("/api/suppression")).body).lists).toEqual([]);
    const review = exportReview.parse(
      (
        await team.buyer.post("/api/purchases/review", {
          kind: "export",
          filter: ofDomain(listed),
          maxRows: 10,
          reveal: "none",
        })
      ).body,
    );
    expect(review.suppressed).toBe(0);
    const audit = (await team.admin.get<{ entries: { action: string; actor: string }[] }>("/api/team/audit"))
      .body.entries;
    const changes = audit.filter((e) => e.action.startsWith("suppression.")).map((e) => [e.action, e.actor]);
    expect(changes[0]).toEqual(["suppression.delete", "bo"]);
    expect(changes.at(-1)).toEqual(["suppression.create", "bo"]);
    expect(changes).toContainEqual(["suppression.add", "ada"]);
  });
});
