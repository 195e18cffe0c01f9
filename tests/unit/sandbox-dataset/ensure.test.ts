import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  companyCountFor,
  DATASET_VERSION,
  datasetPath,
  ensureDataset,
} from "../../../src/sandbox/dataset/index";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-ensure-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("companyCountFor", () => {
  it("is 6% of rows, at least 50", () => {
    expect(companyCountFor(1_000_000)).toBe(60_000);
    expect(companyCountFor(20_000)).toBe(1_200);
    expect(companyCountFor(100)).toBe(50);
  });
});

describe("datasetPath", () => {
  it("names the file after rows, seed and format version", () => {
    expect(datasetPath("/data", { rows: 1000, seed: 3 })).toBe(
      `/data/dataset-r1000-s3-v${DATASET_VERSION}.duckdb`,
    );
  });
});

describe("ensureDataset", () => {
  it("generates the file in a child process, once, and leaves no temporary files", async () => {
    const spec = { rows: 3_000, seed: 11 };
    const lines: string[] = [];
    const [first, second] = await Promise.all([
      ensureDataset(dir, spec, (line) => lines.push(line)),
      ensureDataset(dir, spec),
    ]);
    expect(first).toBe(path.resolve(datasetPath(dir, spec)));
    expect(second).toBe(first);
    expect(readdirSync(dir)).toEqual([path.basename(first)]);

    // What a first start prints while it waits: what is made and where, each stage, the total.
    expect(lines[0]).toBe(
      `generating the sandbox's dataset of 3,000 contacts into ${path.resolve(dir)} (once: later starts open it)…`,
    );
    expect(lines.slice(1, -1).length).toBeGreaterThanOrEqual(4);
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^ {2}[a-z].*: \d+\.\d s$/);
    expect(lines.at(-1)).toMatch(/^dataset generated in \d+ s$/);

    const modified = statSync(first).mtimeMs;
    const again: string[] = [];
    expect(await ensureDataset(dir, spec, (line) => again.push(line))).toBe(first);
    expect(again).toEqual([]);
    expect(statSync(first).mtimeMs).toBe(modified);

    const instance = await DuckDBInstance.create(first, { access_mode: "READ_ONLY" });
    const db = await instance.connect();
    const count = (await db.runAndReadAll("SELECT count(*)::INTEGER FROM contacts")).getRowsJS()[0]?.[0];
    expect(count).toBe(spec.rows);
    db.closeSync();
    instance.closeSync();
  });

  it("handles tiny datasets (fewer rows than companies)", async () => {
    const file = await ensureDataset(dir, { rows: 10, seed: 1 });
    const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
    const db = await instance.connect();
    const [contacts, companies] =
      (
        await db.runAndReadAll(
          "SELECT (SELECT count(*) FROM contacts)::INTEGER, (SELECT count(*) FROM companies)::INTEGER",
        )
      ).getRowsJS()[0] ?? [];
    expect([contacts, companies]).toEqual([10, 50]);
    db.closeSync();
    instance.closeSync();
  });

  it("rejects invalid specs before doing anything", async () => {
    await expect(ensureDataset(dir, { rows: 0, seed: 1 })).rejects.toThrow(/rows/);
    await expect(ensureDataset(dir, { rows: 10, seed: -1 })).rejects.toThrow(/seed/);
    await expect(ensureDataset(dir, { rows: 1.5, seed: 1 })).rejects.toThrow(/rows/);
  });
});
