/**
 * The contact operations under /v2/contact as src/sandbox/README.md fixes them (the documentation names them
 * and leaves their bodies "not shown"): count, preview, estimate, enrich, exports, insights, company
 * count, lookalike and column values, with the sandbox's price table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPANY_COLUMNS, ENUMERABLE_COMPANY_COLUMNS } from "../../../src/contract/columns";
import { REVEALS, type Reveal } from "../../../src/contract/inferred";
import { responses } from "../../../src/contract/operations";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import {
  cond,
  countOf,
  creditsOf,
  csvObjects,
  DEFAULT_FULL_COLUMNS,
  expect422,
  expectDetail,
  expectOk,
  group,
  KEYS,
  priceOfRows,
  revealsEmail,
  revealsMobile,
  sampleIds,
  until,
  waitExport,
} from "./helpers";

let server: SandboxServer;
let payg: ReturnType<typeof api>;
let ayce: ReturnType<typeof api>;
/** A mid-sized audience: people in the most common country. */
let country: string;
let byCountry: ReturnType<typeof group>;

beforeAll(async () => {
  server = await startSandboxServer();
  payg = api(server.url, KEYS.payg);
  ayce = api(server.url, KEYS.ayce);
  const top = expectOk(
    await ayce.post("/v2/contact/insights", { section: "fields", fields: ["COUNTRY_NAME_PER"] }),
    responses.insightsFields,
  );
  country = String(top.fields.COUNTRY_NAME_PER!.find((b) => b.value !== null)!.value);
  byCountry = group([cond("COUNTRY_NAME_PER", "eq", { value: country })]);
});
afterAll(async () => {
  await server?.close();
});

const expectedColumns = (reveal: Reveal, base: readonly string[] = DEFAULT_FULL_COLUMNS) => [
  ...base,
  ...(revealsEmail(reveal) ? ["EMAIL_ADDRESS_PER"] : []),
  ...(revealsMobile(reveal) ? ["CELLPHONE_PER"] : []),
];

describe("Count: POST /v2/contact/count -> {count, mode}", () => {
  it("the whole dataset, an explicit empty group, and the default mode", async () => {
    const all = expectOk(await payg.post("/v2/contact/count", {}), responses.count);
    expect(all).toEqual({ count: 50_000, mode: "exact" });
    expect(await countOf(payg, null)).toBe(50_000);
    expect(await countOf(payg, group([]))).toBe(50_000);
  });

  it("mode fast says so; an unknown mode is 422", async () => {
    const fast = expectOk(await payg.post("/v2/contact/count", { mode: "fast" }), responses.count);
    expect(fast.mode).toBe("fast");
    expect(fast.count).toBeGreaterThan(0);
    expect422(await payg.post("/v2/contact/count", { mode: "approximate" }));
  });

  it("text comparisons ignore case", async () => {
    const exact = await countOf(payg, byCountry);
    expect(exact).toBeGreaterThan(0);
    expect(exact).toBeLessThan(50_000);
    expect(
      await countOf(payg, group([cond("COUNTRY_NAME_PER", "eq", { value: country.toUpperCase() })])),
    ).toBe(exact);
    expect(
      await countOf(
        payg,
        group([cond("COUNTRY_NAME_PER", "in", { valueList: [country.toLowerCase(), "Nowhere"] })]),
      ),
    ).toBe(exact);
  });
});

describe("Preview: full rows now, charged per the price table (1/row + 1/revealed email + 3/revealed mobile)", () => {
  it.each(REVEALS.map((r) => [r]))(
    "reveal %s on PAYG: columns as revealed, charge computed from the rows",
    async (reveal) => {
      const before = await creditsOf(payg);
      const answer = await payg.post("/v2/contact/preview", { filter: byCountry, reveal, limit: 40 });
      const preview = expectOk(answer, responses.preview);
      expect(preview.limit).toBe(40);
      expect(preview.rowCount).toBe(preview.rows.length);
      expect(preview.rows).toHaveLength(40);
      expect(preview.columns).toEqual(["RBID_PAO", ...expectedColumns(reveal).slice(1)]);
      expect(Object.keys(preview.columnLabels).sort()).toEqual([...preview.columns].sort());
      for (const row of preview.rows) {
        expect(Object.keys(row).sort()).toEqual([...preview.columns].sort());
        expect(String(row.COUNTRY_NAME_PER).toLowerCase()).toBe(country.toLowerCase());
        expect(row).not.toHaveProperty("hasEmail");
        expect(row).not.toHaveProperty("hasMobile");
      }
      const ids = preview.rows.map((r) => String(r.RBID_PAO));
      expect(ids).toEqual([...ids].sort());
      const cost = priceOfRows(preview.rows, reveal);
      expect(preview.creditsCharged).toBe(cost);
      expect(preview.creditsRemaining).toBe(before - cost);
      expect(await creditsOf(payg)).toBe(before - cost);
      if (revealsEmail(reveal))
        expect(preview.rows.some((r) => typeof r.EMAIL_ADDRESS_PER === "string")).toBe(true);
    },
  );

  it("limit defaults to 25 and is clamped to 1..100", async () => {
    const byDefault = expectOk(await ayce.post("/v2/contact/preview", { reveal: "none" }), responses.preview);
    expect(byDefault.limit).toBe(25);
    expect(byDefault.rows).toHaveLength(25);
    const big = expectOk(
      await ayce.post("/v2/contact/preview", { reveal: "none", limit: 500 }),
      responses.preview,
    );
    expect(big.limit).toBe(100);
    expect(big.rows).toHaveLength(100);
    const small = expectOk(
      await ayce.post("/v2/contact/preview", { reveal: "none", limit: 0 }),
      responses.preview,
    );
    expect(small.limit).toBe(1);
    expect(small.rows).toHaveLength(1);
  });

  it("email and mobile appear only as revealed, whatever `columns` asks for", async () => {
    const hidden = expectOk(
      await ayce.post("/v2/contact/preview", {
        reveal: "none",
        limit: 5,
        columns: ["FULL_NAME_PER", "EMAIL_ADDRESS_PER", "CELLPHONE_PER"],
      }),
      responses.preview,
    );
    expect(hidden.columns).toEqual(["RBID_PAO", "FULL_NAME_PER"]);
    for (const row of hidden.rows) {
      expect(row).not.toHaveProperty("EMAIL_ADDRESS_PER");
      expect(row).not.toHaveProperty("CELLPHONE_PER");
    }
    const shown = expectOk(
      await ayce.post("/v2/contact/preview", { reveal: "mobile", limit: 5, columns: ["JOB_TITLE_PER"] }),
      responses.preview,
    );
    expect(shown.columns).toEqual(["RBID_PAO", "JOB_TITLE_PER", "CELLPHONE_PER"]);
  });

  it("AYCE: contact retrieval costs 0", async () => {
    const before = await creditsOf(ayce);
    const preview = expectOk(
      await ayce.post("/v2/contact/preview", { reveal: "both", limit: 100 }),
      responses.preview,
    );
    expect(preview.creditsCharged).toBe(0);
    expect(preview.creditsRemaining).toBe(before);
    expect(await creditsOf(ayce)).toBe(before);
  });

  it("an empty audience: no rows, nothing charged", async () => {
    const before = await creditsOf(payg);
    const preview = expectOk(
      await payg.post("/v2/contact/preview", {
        filter: group([cond("FULL_NAME_PER", "eq", { value: "Nobody At All 99" })]),
        reveal: "both",
      }),
      responses.preview,
    );
    expect(preview.rows).toEqual([]);
    expect(preview.creditsCharged).toBe(0);
    expect(await creditsOf(payg)).toBe(before);
  });
});

describe("Estimate: {audienceCount, rows, withEmail, withMobile, credits, plan, balance, sufficient}, free", () => {
  it("figures agree with count, and credits with the price table", async () => {
    const audience = await countOf(payg, byCountry);
    const withEmail = await countOf(
      payg,
      group([...byCountry.children, cond("EMAIL_ADDRESS_PER", "isNotNull")]),
    );
    const withMobile = await countOf(
      payg,
      group([...byCountry.children, cond("CELLPHONE_PER", "isNotNull")]),
    );
    const before = await creditsOf(payg);
    for (const reveal of REVEALS) {
      const estimate = expectOk(
        await payg.post("/v2/contact/export/estimate", { filter: byCountry, maxRows: audience + 10, reveal }),
        responses.estimate,
      );
      expect(estimate).toMatchObject({
        audienceCount: audience,
        rows: audience,
        withEmail,
        withMobile,
        plan: "PAYG",
        balance: before,
      });
      const credits =
        audience + (revealsEmail(reveal) ? withEmail : 0) + (revealsMobile(reveal) ? 3 * withMobile : 0);
      expect(estimate.credits).toBe(credits);
      expect(estimate.sufficient).toBe(credits <= before);
    }
    expect(await creditsOf(payg)).toBe(before);
  });

  it("maxRows below the audience: rows = maxRows; AYCE credits 0 and sufficient", async () => {
    const estimate = expectOk(
      await payg.post("/v2/contact/export/estimate", { filter: byCountry, maxRows: 7, reveal: "email" }),
      responses.estimate,
    );
    expect(estimate.rows).toBe(7);
    expect(estimate.withEmail).toBeLessThanOrEqual(7);
    expect(estimate.credits).toBe(7 + estimate.withEmail);
    const free = expectOk(
      await ayce.post("/v2/contact/export/estimate", { maxRows: 50_000, reveal: "both" }),
      responses.estimate,
    );
    expect(free).toMatchObject({
      audienceCount: 50_000,
      rows: 50_000,
      credits: 0,
      plan: "AYCE",
      sufficient: true,
    });
  });

  it("maxRows must be an integer >= 1 and reveal is required", async () => {
    expect422(await payg.post("/v2/contact/export/estimate", { maxRows: 0, reveal: "none" }));
    expect422(await payg.post("/v2/contact/export/estimate", { maxRows: 5 }));
  });
});

describe("Enrich: by personIds (from a View) or by emails; duplicates once; notFound listed; at most 1000", () => {
  it("by personIds from a View: the same people, full rows as revealed, charged per the price table", async () => {
    const sample = expectOk(
      await payg.post("/v2/contact/view", {
        limit: 12,
        columns: ["FULL_NAME_PER", "EMAIL_ADDRESS_PER", "CELLPHONE_PER"],
      }),
      responses.view,
    );
    const ids = sample.rows.map((r) => String(r.RBID_PAO));
    const before = await creditsOf(payg);
    const enrich = expectOk(
      await payg.post("/v2/contact/enrich", {
        personIds: [...ids, ids[0], ids[1], "NOT-AN-ID-1"],
        reveal: "both",
      }),
      responses.enrich,
    );
    expect(enrich.matched).toBe(12);
    expect(enrich.rows).toHaveLength(12);
    expect(enrich.notFound).toEqual(["NOT-AN-ID-1"]);
    expect(new Set(enrich.rows.map((r) => r.RBID_PAO))).toEqual(new Set(ids));
    const byId = new Map(sample.rows.map((r) => [r.RBID_PAO, r]));
    for (const row of enrich.rows) {
      const seen = byId.get(row.RBID_PAO)!;
      expect(row.FULL_NAME_PER).toBe(seen.FULL_NAME_PER);
      // The View's flags told the truth.
      expect(row.EMAIL_ADDRESS_PER != null).toBe(seen.hasEmail);
      expect(row.CELLPHONE_PER != null).toBe(seen.hasMobile);
      expect(Object.keys(row).sort()).toEqual([...expectedColumns("both")].sort());
    }
    const cost = priceOfRows(enrich.rows, "both");
    expect(enrich.creditsCharged).toBe(cost);
    expect(enrich.creditsRemaining).toBe(before - cost);
    expect(await creditsOf(payg)).toBe(before - cost);
  });

  it("reveal none: no email or mobile columns, 1 credit per row", async () => {
    const ids = await sampleIds(payg, null, 5);
    const enrich = expectOk(
      await payg.post("/v2/contact/enrich", { personIds: ids, reveal: "none" }),
      responses.enrich,
    );
    expect(enrich.creditsCharged).toBe(5);
    for (const row of enrich.rows) {
      expect(row).not.toHaveProperty("EMAIL_ADDRESS_PER");
      expect(row).not.toHaveProperty("CELLPHONE_PER");
    }
  });

  it("by emails: case-insensitive, duplicates count once, unknown ones in notFound", async () => {
    const ids = await sampleIds(payg, group([cond("EMAIL_ADDRESS_PER", "isNotNull")]), 4);
    const withEmail = expectOk(
      await ayce.post("/v2/contact/enrich", { personIds: ids, reveal: "email" }),
      responses.enrich,
    );
    const emails = withEmail.rows.map((r) => String(r.EMAIL_ADDRESS_PER));
    expect(emails).toHaveLength(4);
    const asked = [
      emails[0]!.toUpperCase(),
      emails[0]!,
      emails[1]!,
      emails[2]!.toLowerCase(),
      emails[3]!,
      "nobody@nowhere.invalid",
    ];
    const before = await creditsOf(payg);
    const enrich = expectOk(
      await payg.post("/v2/contact/enrich", { emails: asked, reveal: "email" }),
      responses.enrich,
    );
    expect(enrich.matched).toBe(4);
    expect(enrich.rows).toHaveLength(4);
    expect(new Set(enrich.rows.map((r) => r.RBID_PAO))).toEqual(new Set(ids));
    expect(enrich.notFound).toEqual(["nobody@nowhere.invalid"]);
    expect(enrich.creditsCharged).toBe(4 * 2);
    expect(await creditsOf(payg)).toBe(before - 8);
  });

  it("by personIds: case-insensitive, the rows keep the ids as stored", async () => {
    const ids = await sampleIds(ayce, null, 3);
    const asked = [ids[0]!.toUpperCase(), ` ${ids[1]!} `, ids[2]!];
    const enrich = expectOk(
      await ayce.post("/v2/contact/enrich", { personIds: asked, reveal: "none" }),
      responses.enrich,
    );
    expect(enrich.matched).toBe(3);
    expect(enrich.notFound).toEqual([]);
    expect(enrich.rows.map((r) => r.RBID_PAO)).toEqual(ids);
  });

  it("a person asked for by id and by email is delivered (and charged) once", async () => {
    const ids = await sampleIds(payg, group([cond("EMAIL_ADDRESS_PER", "isNotNull")]), 1);
    const row = expectOk(
      await ayce.post("/v2/contact/enrich", { personIds: ids, reveal: "email" }),
      responses.enrich,
    ).rows[0]!;
    const enrich = expectOk(
      await payg.post("/v2/contact/enrich", {
        personIds: ids,
        emails: [String(row.EMAIL_ADDRESS_PER)],
        reveal: "none",
      }),
      responses.enrich,
    );
    expect(enrich.matched).toBe(1);
    expect(enrich.creditsCharged).toBe(1);
  });

  it("a long list finds every row it names: 600 ids and 400 emails from an export, one call", async () => {
    const started = expectOk(
      await ayce.post("/v2/contact/export", {
        filter: group([cond("EMAIL_ADDRESS_PER", "isNotNull")]),
        maxRows: 1000,
        reveal: "email",
        columns: ["RBID_PAO"],
      }),
      responses.exportStarted,
      202,
    );
    expect((await waitExport(ayce, started.exportId)).status).toBe("COMPLETED");
    const { rows } = csvObjects((await ayce.get(`/v2/contact/export/${started.exportId}/download`)).text);
    expect(rows).toHaveLength(1000);
    const ids = rows.slice(0, 600).map((r) => String(r.RBID_PAO));
    // Emails in another case than stored, from rows the ids do not name.
    const emails = rows.slice(600).map((r) => String(r.EMAIL_ADDRESS_PER).toUpperCase());
    const enrich = expectOk(
      await ayce.post("/v2/contact/enrich", { personIds: ids, emails, reveal: "email" }),
      responses.enrich,
    );
    expect(enrich.notFound).toEqual([]);
    expect(enrich.matched).toBe(1000);
    expect(new Set(enrich.rows.map((r) => r.RBID_PAO))).toEqual(new Set(rows.map((r) => r.RBID_PAO)));
  });

  it("no entries, or more than 1000 in all, is a 422; 1000 is fine", async () => {
    expect422(await payg.post("/v2/contact/enrich", { reveal: "none" }));
    expect422(await payg.post("/v2/contact/enrich", { personIds: [], emails: [], reveal: "none" }));
    const many = Array.from({ length: 600 }, (_, i) => `missing-${i}`);
    const before = await creditsOf(payg);
    expect422(
      await payg.post("/v2/contact/enrich", {
        personIds: many,
        emails: many.slice(0, 401).map((m) => `${m}@nowhere.invalid`),
        reveal: "none",
      }),
    );
    const ok = expectOk(
      await payg.post("/v2/contact/enrich", {
        personIds: many,
        emails: many.slice(0, 400).map((m) => `${m}@nowhere.invalid`),
        reveal: "none",
      }),
      responses.enrich,
    );
    expect(ok.matched).toBe(0);
    expect(ok.notFound).toHaveLength(1000);
    expect(await creditsOf(payg)).toBe(before);
  });
});

describe("Exports: start 202, QUEUED/PROCESSING -> COMPLETED, RFC 4180 download, charged the estimate once", () => {
  it("a PAYG export delivers exactly the estimated rows and columns and is charged exactly the estimate, once", async () => {
    const filter = byCountry;
    const maxRows = 300;
    const estimate = expectOk(
      await payg.post("/v2/contact/export/estimate", { filter, maxRows, reveal: "both" }),
      responses.estimate,
    );
    expect(estimate.rows).toBe(Math.min(maxRows, estimate.audienceCount));
    const before = await creditsOf(payg);
    const started = expectOk(
      await payg.post("/v2/contact/export", { filter, maxRows, reveal: "both", name: "Top country, both" }),
      responses.exportStarted,
      202,
    );
    expect(started.rows).toBe(estimate.rows);
    expect(started.credits).toBe(estimate.credits);
    const seen = new Set<string>();
    const done = await until(
      async () => expectOk(await payg.get(`/v2/contact/export/${started.exportId}`), responses.exportStatus),
      (s) => {
        seen.add(s.status);
        return s.status !== "QUEUED" && s.status !== "PROCESSING";
      },
      { timeoutMs: 30_000, intervalMs: 20, what: "export" },
    );
    expect([...seen].every((s) => ["QUEUED", "PROCESSING", "COMPLETED"].includes(s))).toBe(true);
    expect(done.status).toBe("COMPLETED");
    expect(done.rowsWritten).toBe(estimate.rows);
    expect(done.rows).toBe(estimate.rows);
    expect(done.credits).toBe(estimate.credits);
    expect(done.name).toBe("Top country, both");
    expect(done.completedAt).toBeTruthy();
    expect(await creditsOf(payg)).toBe(before - estimate.credits);

    const download = await payg.get(`/v2/contact/export/${started.exportId}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename=".+\.csv"$/);
    const csv = csvObjects(download.text);
    expect(csv.header).toEqual(expectedColumns("both"));
    expect(csv.rows).toHaveLength(estimate.rows);
    expect(csv.rows.filter((r) => r.EMAIL_ADDRESS_PER !== null)).toHaveLength(estimate.withEmail);
    expect(csv.rows.filter((r) => r.CELLPHONE_PER !== null)).toHaveLength(estimate.withMobile);
    const ids = csv.rows.map((r) => String(r.RBID_PAO));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    for (const row of csv.rows)
      expect(String(row.COUNTRY_NAME_PER).toLowerCase()).toBe(country.toLowerCase());
    // The first rows by RBID_PAO: the same as a preview of the same filter.
    const preview = expectOk(
      await ayce.post("/v2/contact/preview", { filter, reveal: "both", limit: 50 }),
      responses.preview,
    );
    expect(ids.slice(0, 50)).toEqual(preview.rows.map((r) => String(r.RBID_PAO)));
    expect(csv.rows[0]!.EMAIL_ADDRESS_PER).toBe(preview.rows[0]!.EMAIL_ADDRESS_PER ?? null);

    // Re-downloading costs nothing and gives the same file.
    const again = await payg.get(`/v2/contact/export/${started.exportId}/download`);
    expect(again.text).toBe(download.text);
    expect(await creditsOf(payg)).toBe(before - estimate.credits);

    // Completed: cancel is a 400 and nothing changes.
    expectDetail(await payg.post(`/v2/contact/export/${started.exportId}/cancel`), 400);
    expect(
      expectOk(await payg.get(`/v2/contact/export/${started.exportId}`), responses.exportStatus).status,
    ).toBe("COMPLETED");
  });

  it("RFC 4180: fields with commas survive quoting; null is an empty field; values equal the records", async () => {
    const columns = [
      "FULL_NAME_PER",
      "JOB_TITLE_PER",
      "INDUSTRY_LINKEDIN_ORG",
      "ABOUT_US_ORG",
      "STATE_NAME_PER",
      "FOUNDED_ORG",
      "WEBSITE_ORG",
    ];
    // Rows whose title or industry holds a comma (the generated data has such values), plus nulls.
    const filter = group(
      [
        cond("JOB_TITLE_PER", "contains", { value: "," }),
        cond("INDUSTRY_LINKEDIN_ORG", "contains", { value: "," }),
        cond("STATE_NAME_PER", "isNull"),
      ],
      { op: "OR" },
    );
    const commas = await countOf(
      ayce,
      group(
        [
          cond("JOB_TITLE_PER", "contains", { value: "," }),
          cond("INDUSTRY_LINKEDIN_ORG", "contains", { value: "," }),
        ],
        {
          op: "OR",
        },
      ),
    );
    expect(commas, "the dataset has values with commas").toBeGreaterThan(0);
    const started = expectOk(
      await ayce.post("/v2/contact/export", { filter, maxRows: 400, reveal: "none", columns }),
      responses.exportStarted,
      202,
    );
    expect((await waitExport(ayce, started.exportId)).status).toBe("COMPLETED");
    const download = await ayce.get(`/v2/contact/export/${started.exportId}/download`);
    const csv = csvObjects(download.text);
    expect(csv.header).toEqual(["RBID_PAO", ...columns]);
    expect(csv.rows).toHaveLength(400);
    expect(download.text.endsWith("\r\n")).toBe(true);
    expect(
      csv.rows.some(
        (r) => String(r.JOB_TITLE_PER).includes(",") || String(r.INDUSTRY_LINKEDIN_ORG).includes(","),
      ),
    ).toBe(true);
    expect(csv.rows.some((r) => r.STATE_NAME_PER === null)).toBe(true);
    const ids = csv.rows.map((r) => String(r.RBID_PAO));
    const enrich = expectOk(
      await ayce.post("/v2/contact/enrich", { personIds: ids, reveal: "none", columns }),
      responses.enrich,
    );
    const byId = new Map(enrich.rows.map((r) => [String(r.RBID_PAO), r]));
    for (const row of csv.rows) {
      const truth = byId.get(String(row.RBID_PAO))!;
      for (const column of columns) {
        const value = truth[column];
        expect(row[column], `${row.RBID_PAO}.${column}`).toBe(
          value === null || value === undefined ? null : String(value),
        );
      }
    }
  });

  it("a column asked for twice is delivered once: the header and every record have the same fields", async () => {
    const columns = ["FULL_NAME_PER", "FULL_NAME_PER", "RBID_PAO", "EMAIL_ADDRESS_PER"];
    const preview = expectOk(
      await ayce.post("/v2/contact/preview", { limit: 2, reveal: "email", columns }),
      responses.preview,
    );
    expect(preview.columns).toEqual(["RBID_PAO", "FULL_NAME_PER", "EMAIL_ADDRESS_PER"]);
    const started = expectOk(
      await ayce.post("/v2/contact/export", { maxRows: 3, reveal: "email", columns }),
      responses.exportStarted,
      202,
    );
    await waitExport(ayce, started.exportId);
    const csv = csvObjects((await ayce.get(`/v2/contact/export/${started.exportId}/download`)).text);
    expect(csv.header).toEqual(["RBID_PAO", "FULL_NAME_PER", "EMAIL_ADDRESS_PER"]);
    expect(csv.rows).toHaveLength(3);
  });

  it("maxRows >= the audience delivers the whole audience", async () => {
    const filter = group([
      cond("COUNTRY_NAME_PER", "eq", { value: country }),
      cond("CELLPHONE_PER", "isNotNull"),
    ]);
    const audience = await countOf(ayce, filter);
    const started = expectOk(
      await ayce.post("/v2/contact/export", { filter, maxRows: audience + 1000, reveal: "mobile" }),
      responses.exportStarted,
      202,
    );
    expect(started.rows).toBe(audience);
    await waitExport(ayce, started.exportId);
    const csv = csvObjects((await ayce.get(`/v2/contact/export/${started.exportId}/download`)).text);
    expect(csv.rows).toHaveLength(audience);
    expect(csv.rows.every((r) => r.CELLPHONE_PER !== null)).toBe(true);
  });

  it("download before completion is 409; cancel -> CANCELLED, nothing charged; the list is newest first", async () => {
    // A large export (AYCE, free) occupies the single export worker, so the next one waits.
    const blocker = expectOk(
      await ayce.post("/v2/contact/export", {
        maxRows: 50_000,
        reveal: "both",
        columns: [...COMPANY_COLUMNS, "FULL_NAME_PER", "JOB_TITLE_PER", "CITY_PER", "LINKEDIN_URL_PER"],
      }),
      responses.exportStarted,
      202,
    );
    const before = await creditsOf(payg);
    const queued = expectOk(
      await payg.post("/v2/contact/export", {
        filter: byCountry,
        maxRows: 20,
        reveal: "email",
        name: "to cancel",
      }),
      responses.exportStarted,
      202,
    );
    expect(queued.status).toBe("QUEUED");
    const status = expectOk(await payg.get(`/v2/contact/export/${queued.exportId}`), responses.exportStatus);
    expect(["QUEUED", "PROCESSING"]).toContain(status.status);
    const early = await payg.get(`/v2/contact/export/${queued.exportId}/download`);
    expectDetail(early, 409);
    const blockerEarly = await ayce.get(`/v2/contact/export/${blocker.exportId}/download`);
    expectDetail(blockerEarly, 409);

    const cancelled = expectOk(
      await payg.post(`/v2/contact/export/${queued.exportId}/cancel`),
      responses.exportStatus,
    );
    expect(cancelled.status).toBe("CANCELLED");
    expect(cancelled.exportId).toBe(queued.exportId);

    const finished = await waitExport(ayce, blocker.exportId, 60_000);
    expect(finished.status).toBe("COMPLETED");
    expect(finished.rowsWritten).toBe(50_000);
    // The cancelled export never ran and cost nothing.
    const after = expectOk(await payg.get(`/v2/contact/export/${queued.exportId}`), responses.exportStatus);
    expect(after.status).toBe("CANCELLED");
    expect(await creditsOf(payg)).toBe(before);
    expectDetail(await payg.get(`/v2/contact/export/${queued.exportId}/download`), 409);

    // A second PAYG export, then the list: newest first, this account's only.
    const latest = expectOk(
      await payg.post("/v2/contact/export", { maxRows: 2, reveal: "none", name: "latest" }),
      responses.exportStarted,
      202,
    );
    await waitExport(payg, latest.exportId);
    const list = expectOk(await payg.get("/v2/contact/exports"), responses.exports).exports;
    expect(list[0]!.exportId).toBe(latest.exportId);
    const ids = list.map((e) => e.exportId);
    expect(ids.indexOf(latest.exportId)).toBeLessThan(ids.indexOf(queued.exportId));
    expect(ids).not.toContain(blocker.exportId);
    const created = list.map((e) => Date.parse(e.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(list.find((e) => e.exportId === queued.exportId)!.status).toBe("CANCELLED");
  });

  it("another account's export, or an unknown id, is 404", async () => {
    const mine = expectOk(
      await payg.post("/v2/contact/export", { maxRows: 1, reveal: "none" }),
      responses.exportStarted,
      202,
    );
    await waitExport(payg, mine.exportId);
    expectDetail(await ayce.get(`/v2/contact/export/${mine.exportId}`), 404);
    expectDetail(await ayce.get(`/v2/contact/export/${mine.exportId}/download`), 404);
    expectDetail(await payg.get("/v2/contact/export/exp_doesnotexist"), 404);
  });
});

describe("Insights: summary, breakdown (top 20 + otherCount = total, null a value), fields (top 10)", () => {
  it("summary counts agree with count and company count", async () => {
    const summary = expectOk(
      await payg.post("/v2/contact/insights", { section: "summary", filter: byCountry }),
      responses.insightsSummary,
    );
    expect(summary.total).toBe(await countOf(payg, byCountry));
    expect(summary.withEmail).toBe(
      await countOf(payg, group([...byCountry.children, cond("EMAIL_ADDRESS_PER", "isNotNull")])),
    );
    expect(summary.withMobile).toBe(
      await countOf(payg, group([...byCountry.children, cond("CELLPHONE_PER", "isNotNull")])),
    );
    const companies = expectOk(
      await payg.post("/v2/contact/company/count", { filter: byCountry }),
      responses.companyCount,
    );
    expect(summary.companies).toBe(companies.count);
  });

  it("breakdown: at most 20 buckets, by count descending, buckets + otherCount = total, each bucket a true count", async () => {
    const breakdown = expectOk(
      await payg.post("/v2/contact/insights", { section: "breakdown", groupField: "JOB_TITLE_PER" }),
      responses.insightsBreakdown,
    );
    expect(breakdown.groupField).toBe("JOB_TITLE_PER");
    expect(breakdown.total).toBe(50_000);
    expect(breakdown.buckets.length).toBeLessThanOrEqual(20);
    expect(breakdown.buckets.length).toBe(20); // titles are many
    const counts = breakdown.buckets.map((b) => b.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts.reduce((a, b) => a + b, 0) + breakdown.otherCount).toBe(breakdown.total);
    expect(breakdown.otherCount).toBeGreaterThan(0);
    for (const bucket of breakdown.buckets.slice(0, 3)) {
      const filter =
        bucket.value === null
          ? group([cond("JOB_TITLE_PER", "isNull")])
          : group([cond("JOB_TITLE_PER", "in", { valueList: [String(bucket.value)] })]);
      expect(await countOf(payg, filter)).toBe(bucket.count);
    }
  });

  it("breakdown: null is a value like any other", async () => {
    let column: string | null = null;
    for (const candidate of [
      "STATE_NAME_PER",
      "JOB_FUNCTION_PER",
      "FOUNDED_ORG",
      "CITY_PER",
      "LINKEDIN_URL_PER",
      "REVENUE_MIN",
    ]) {
      if ((await countOf(payg, group([cond(candidate, "isNull")]))) > 0) {
        column = candidate;
        break;
      }
    }
    expect(column, "a non-masked column with nulls in the dataset").not.toBeNull();
    const nulls = await countOf(payg, group([cond(column!, "isNull")]));
    const someValue = expectOk(
      await payg.post("/v2/contact/insights", { section: "fields", fields: [column] }),
      responses.insightsFields,
    ).fields[column!]!.find((b) => b.value !== null)!;
    const filter = group(
      [cond(column!, "isNull"), cond(column!, "in", { valueList: [String(someValue.value)] })],
      { op: "OR" },
    );
    const breakdown = expectOk(
      await payg.post("/v2/contact/insights", { section: "breakdown", groupField: column, filter }),
      responses.insightsBreakdown,
    );
    expect(breakdown.total).toBe(nulls + someValue.count);
    expect(breakdown.otherCount).toBe(0);
    expect(breakdown.buckets).toContainEqual({ value: null, count: nulls });
    expect(breakdown.buckets).toContainEqual({ value: someValue.value, count: someValue.count });
  });

  it("breakdown of an empty audience: total 0, no buckets", async () => {
    const breakdown = expectOk(
      await payg.post("/v2/contact/insights", {
        section: "breakdown",
        groupField: "COUNTRY_NAME_PER",
        filter: group([cond("FULL_NAME_PER", "eq", { value: "Nobody At All 99" })]),
      }),
      responses.insightsBreakdown,
    );
    expect(breakdown).toMatchObject({ total: 0, buckets: [], otherCount: 0 });
  });

  it("fields: top 10 per field, descending, consistent with breakdown", async () => {
    const fields = expectOk(
      await payg.post("/v2/contact/insights", {
        section: "fields",
        fields: ["JOB_TITLE_PER", "JOB_LEVEL_PER", "INDUSTRY_LINKEDIN_ORG"],
        filter: byCountry,
      }),
      responses.insightsFields,
    );
    expect(Object.keys(fields.fields).sort()).toEqual([
      "INDUSTRY_LINKEDIN_ORG",
      "JOB_LEVEL_PER",
      "JOB_TITLE_PER",
    ]);
    for (const list of Object.values(fields.fields)) {
      expect(list.length).toBeGreaterThan(0);
      expect(list.length).toBeLessThanOrEqual(10);
      const counts = list.map((b) => b.count);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    }
    expect(fields.fields.JOB_TITLE_PER).toHaveLength(10);
    const breakdown = expectOk(
      await payg.post("/v2/contact/insights", {
        section: "breakdown",
        groupField: "JOB_TITLE_PER",
        filter: byCountry,
      }),
      responses.insightsBreakdown,
    );
    expect(fields.fields.JOB_TITLE_PER!.map((b) => b.count)).toEqual(
      breakdown.buckets.slice(0, 10).map((b) => b.count),
    );
  });

  it("422: unknown section, breakdown without groupField, masked groupField, more than 10 fields", async () => {
    expect422(await payg.post("/v2/contact/insights", { section: "everything" }));
    const missing = expect422(await payg.post("/v2/contact/insights", { section: "breakdown" }));
    expect(missing.detail[0]!.loc).toEqual(["body", "groupField"]);
    expect422(
      await payg.post("/v2/contact/insights", { section: "breakdown", groupField: "EMAIL_ADDRESS_PER" }),
    );
    expect422(await payg.post("/v2/contact/insights", { section: "fields", fields: ["CELLPHONE_PER"] }));
    expect422(
      await payg.post("/v2/contact/insights", {
        section: "fields",
        fields: Array.from({ length: 11 }, () => "JOB_TITLE_PER"),
      }),
    );
  });
});

describe("Company count: POST /v2/contact/company/count -> {count}; mode ignored", () => {
  it("counts distinct companies among the matching contacts", async () => {
    const all = expectOk(await payg.post("/v2/contact/company/count", {}), responses.companyCount);
    expect(all.count).toBeGreaterThan(1);
    expect(all.count).toBeLessThan(50_000);
    const some = expectOk(
      await payg.post("/v2/contact/company/count", { filter: byCountry, mode: "whatever-you-like" }),
      responses.companyCount,
    );
    expect(some.count).toBeGreaterThan(0);
    expect(some.count).toBeLessThanOrEqual(all.count);
    const again = expectOk(
      await payg.post("/v2/contact/company/count", { filter: byCountry }),
      responses.companyCount,
    );
    expect(again.count).toBe(some.count);
    // One person's company: exactly 1.
    const [id] = await sampleIds(payg, null, 1);
    const one = expectOk(
      await payg.post("/v2/contact/company/count", {
        filter: group([cond("RBID_PAO", "eq", { value: id })]),
      }),
      responses.companyCount,
    );
    expect(one.count).toBe(1);
    const none = expectOk(
      await payg.post("/v2/contact/company/count", {
        filter: group([cond("FULL_NAME_PER", "eq", { value: "Nobody At All 99" })]),
      }),
      responses.companyCount,
    );
    expect(none.count).toBe(0);
  });
});

describe("Company lookalike: by domain or rbidOrg, nearest first, the source left out", () => {
  let source: { RBID_ORG: string; DOMAIN_ORG: string };
  beforeAll(async () => {
    const row = expectOk(
      await payg.post("/v2/contact/view", { columns: ["RBID_ORG", "DOMAIN_ORG"], limit: 1 }),
      responses.view,
    ).rows[0]!;
    source = { RBID_ORG: String(row.RBID_ORG), DOMAIN_ORG: String(row.DOMAIN_ORG) };
  });

  it("by domain and by rbidOrg give the same answer; default limit 25; distances non-decreasing", async () => {
    const byDomain = expectOk(
      await payg.post("/v2/contact/company/lookalike", { domain: source.DOMAIN_ORG }),
      responses.lookalike,
    );
    const byId = expectOk(
      await payg.post("/v2/contact/company/lookalike", { rbidOrg: source.RBID_ORG }),
      responses.lookalike,
    );
    expect(byDomain).toEqual(byId);
    expect(byDomain.limit).toBe(25);
    expect(byDomain.companies).toHaveLength(25);
    expect(byDomain.source.RBID_ORG).toBe(source.RBID_ORG);
    expect(byDomain.source.DOMAIN_ORG).toBe(source.DOMAIN_ORG);
    const distances = byDomain.companies.map((c) => c.distance as number);
    for (const d of distances) expect(typeof d).toBe("number");
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(byDomain.companies.map((c) => c.RBID_ORG)).not.toContain(source.RBID_ORG);
    expect(new Set(byDomain.companies.map((c) => c.RBID_ORG)).size).toBe(25);
    // INFERRED: every company has another within `similar` distance (0.25).
    expect(distances[0]!).toBeLessThanOrEqual(0.25);
  });

  it("columns ['*'] returns every company column; limit is clamped", async () => {
    const all = expectOk(
      await payg.post("/v2/contact/company/lookalike", {
        domain: source.DOMAIN_ORG,
        columns: ["*"],
        limit: 3,
      }),
      responses.lookalike,
    );
    expect(all.limit).toBe(3);
    expect(all.companies).toHaveLength(3);
    for (const company of [all.source, ...all.companies])
      for (const column of COMPANY_COLUMNS) expect(company).toHaveProperty(column);
    for (const company of all.companies) expect(company).toHaveProperty("distance");
    const picked = expectOk(
      await payg.post("/v2/contact/company/lookalike", {
        domain: source.DOMAIN_ORG,
        columns: ["COMPANY_NAME_ORG"],
        limit: 1000,
      }),
      responses.lookalike,
    );
    expect(picked.limit).toBe(100);
    expect(picked.companies).toHaveLength(100);
    expect(Object.keys(picked.companies[0]!).sort()).toEqual(["COMPANY_NAME_ORG", "RBID_ORG", "distance"]);
    const one = expectOk(
      await payg.post("/v2/contact/company/lookalike", { domain: source.DOMAIN_ORG, limit: 0 }),
      responses.lookalike,
    );
    expect(one.companies).toHaveLength(1);
  });

  it("422: unknown company, both domain and rbidOrg, neither, a contact-level column", async () => {
    expect422(await payg.post("/v2/contact/company/lookalike", { domain: "no-such-company-domain.invalid" }));
    expect422(await payg.post("/v2/contact/company/lookalike", { rbidOrg: "NO_SUCH_ORG" }));
    expect422(
      await payg.post("/v2/contact/company/lookalike", {
        domain: source.DOMAIN_ORG,
        rbidOrg: source.RBID_ORG,
      }),
    );
    expect422(await payg.post("/v2/contact/company/lookalike", {}));
    expect422(
      await payg.post("/v2/contact/company/lookalike", {
        domain: source.DOMAIN_ORG,
        columns: ["FULL_NAME_PER"],
      }),
    );
  });
});

describe("Company column values: GET /v2/contact/company/columns/{column}/values", () => {
  it.each(ENUMERABLE_COMPANY_COLUMNS.map((c) => [c]))(
    "%s: {column, values, count}, distinct and real",
    async (column) => {
      const values = expectOk(
        await payg.get(`/v2/contact/company/columns/${column}/values`),
        responses.columnValues,
      );
      expect(values.column).toBe(column);
      expect(values.count).toBe(values.values.length);
      expect(values.count).toBeGreaterThan(1);
      expect(new Set(values.values).size).toBe(values.count);
      for (const v of values.values) expect(v).not.toBe("");
      // Every value seen on a sample of contacts is listed.
      const sample = expectOk(
        await payg.post("/v2/contact/view", { columns: [column], limit: 100 }),
        responses.view,
      );
      for (const row of sample.rows)
        if (row[column] != null) expect(values.values).toContain(String(row[column]));
    },
  );

  it("range bands come in size order, not text order", async () => {
    const { values } = expectOk(
      await payg.get("/v2/contact/company/columns/EMPLOYEE_COUNT_RANGE_ORG/values"),
      responses.columnValues,
    );
    const lowerBound = (band: string) => Number.parseInt(band.replace(/[^0-9].*$/, ""), 10);
    const bounds = values.map(lowerBound);
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
  });

  it("exactly four enumerable columns", () => {
    expect([...ENUMERABLE_COMPANY_COLUMNS].sort()).toEqual(
      [
        "EMPLOYEE_COUNT_RANGE_ORG",
        "HEADQUARTERS_COUNTRY_NAME_ORG",
        "INDUSTRY_LINKEDIN_ORG",
        "REVENUE_RANGE_ORG",
      ].sort(),
    );
  });

  it.each([["COMPANY_NAME_ORG"], ["FULL_NAME_PER"], ["NOPE"], ["industry_linkedin_org"]])(
    "%s: 422 at [path, column]",
    async (column) => {
      const record = expect422(await payg.get(`/v2/contact/company/columns/${column}/values`));
      expect(record.detail[0]!.loc).toEqual(["path", "column"]);
    },
  );
});
