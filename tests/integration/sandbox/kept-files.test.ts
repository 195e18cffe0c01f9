/**
 * Nothing the sandbox keeps is silently lost: every file it reads back, damaged (truncated,
 * garbage, empty), refuses the start (or the one operation that needs it) with a message naming
 * the file, keeps a copy, and once the file is put back everything is as it was: credits, the
 * rotated key, exports and verification jobs.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import { datasetPath } from "../../../src/sandbox/dataset/index";
import { SandboxStartError } from "../../../src/sandbox/state/damage";
import { api, startSandboxServer } from "../../support/sandbox-server";
import {
  cond,
  creditsOf,
  expectDetail,
  expectOk,
  group,
  KEYS,
  sandboxesClosedAfterEach,
  upload,
  waitExport,
  waitJob,
} from "./helpers";

/**
 * Data folders these tests made: restarts keep their data, so they are removed here (registered
 * first, so it runs after the servers are closed).
 */
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const start = sandboxesClosedAfterEach();
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sandbox-it-"));
  made.push(dir);
  return dir;
};
const filter = group([cond("JOB_LEVEL_PER", "eq", { value: "Director" })]);
/** Slow enough that the long job is still under way when the sandbox stops. */
const VERIFY_RATE = 20;
/** Restarts verify nothing (allowance never reaches one address), so credits stay put while checked. */
const STILL = 0.1;

interface Kept {
  dataDir: string;
  key: string;
  credits: number;
  exportId: string;
  csv: string;
  doneJob: number;
  liveJob: number;
}

/**
 * A data folder holding one of everything: a charge, a rotated key, a completed export (archived),
 * a completed verification job (archived) and one under way (its input and results files live).
 */
async function keptData(): Promise<Kept> {
  const s = await startSandboxServer({ dataDir: tempDir(), verifyRate: VERIFY_RATE });
  const old = api(s.url, KEYS.payg);
  expect((await old.post("/v2/contact/preview", { limit: 3, reveal: "email" })).status).toBe(200);
  const key = expectOk(await old.post("/v2/account/api-keys/rotate"), responses.newKey).api_key;
  const payg = api(s.url, key);
  const exportId = expectOk(
    await payg.post("/v2/contact/export", { filter, maxRows: 7, reveal: "email" }),
    responses.exportStarted,
    202,
  ).exportId;
  expect((await waitExport(payg, exportId)).status).toBe("COMPLETED");
  const batch = async (n: number, tag: string) =>
    expectOk(
      await payg.post("/v2/email/verify/batch", undefined, {
        raw: upload("list.csv", Array.from({ length: n }, (_, i) => `${tag}${i}@example.com\r\n`).join("")),
      }),
      responses.batchUploadedV2,
    ).process_id;
  const doneJob = await batch(2, "done");
  await waitJob(payg, doneJob, ["COMPLETED"]);
  const liveJob = await batch(400, "live");
  await waitJob(payg, liveJob, ["PROCESSING"]);
  const csv = (await payg.get(`/v2/contact/export/${exportId}/download`)).text;
  await s.close({ keepData: true });
  // Read once stopped: the live job charges as it goes.
  const state = JSON.parse(readFileSync(path.join(s.dataDir, "state", "state.json"), "utf8")) as {
    accounts: Record<string, { credits: number }>;
  };
  const credits = state.accounts.acct_payg!.credits;
  return { dataDir: s.dataDir, key, credits, exportId, csv, doneJob, liveJob };
}

/** The refusal of a start on `dataDir`, or a failure if it started. */
async function refusal(dataDir: string): Promise<SandboxStartError> {
  const error = await start({ dataDir, verifyRate: STILL }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxStartError);
  return error as SandboxStartError;
}

/** The copy the message names, which must hold the damaged bytes. */
function expectCopy(message: string, bytes: Buffer | string) {
  const copy = message.match(/(?:a copy is kept at|it was moved to) (\S+?);/)?.[1];
  expect(copy, message).toBeDefined();
  // Buffer.equals: toEqual compares a dataset's megabytes element by element, for seconds.
  expect(readFileSync(copy!).equals(Buffer.from(bytes)), `${copy} holds the damaged bytes`).toBe(true);
}

/** Truncated, garbage, empty: each of a file's damages, from its good bytes. */
function damagesOf(good: Buffer): Record<string, Buffer> {
  return {
    truncated: good.subarray(0, Math.floor(good.length / 2)),
    garbage: Buffer.from("\u0000\u0013 not what was written }{\n"),
    empty: Buffer.alloc(0),
  };
}

/** Every damage of one kept file refuses the start; put back, everything is as it was. */
async function refusesEachDamage(kept: Kept, file: string, extraCheck?: (message: string) => void) {
  const good = readFileSync(file);
  for (const [kind, bytes] of Object.entries(damagesOf(good))) {
    writeFileSync(file, bytes);
    const { message } = await refusal(kept.dataDir);
    expect(message, kind).toContain(file);
    expect(message).toMatch(/is damaged/);
    expect(message).toMatch(/restore it from a backup/);
    expectCopy(message, bytes);
    expect(readFileSync(file), `${kind}: the damaged file is left as it was`).toEqual(bytes);
    extraCheck?.(message);
  }
  writeFileSync(file, good);
  await expectNothingLost(kept);
}

async function expectNothingLost(kept: Kept) {
  const s = await start({ dataDir: kept.dataDir, verifyRate: STILL });
  const payg = api(s.url, kept.key);
  expectDetail(await api(s.url, KEYS.payg).get("/v2/credits"), 401);
  expect(await creditsOf(payg)).toBe(kept.credits);
  const listed = expectOk(await payg.get("/v2/contact/exports"), responses.exports).exports;
  expect(listed.map((e) => e.exportId)).toEqual([kept.exportId]);
  expect((await payg.get(`/v2/contact/export/${kept.exportId}/download`)).text).toBe(kept.csv);
  expect(expectOk(await payg.get(`/v2/jobs/${kept.doneJob}`), responses.jobStatusV2).current_status).toBe(
    "COMPLETED",
  );
  expect((await payg.get(`/v2/jobs/${kept.doneJob}/download`)).status).toBe(200);
  expect(expectOk(await payg.get(`/v2/jobs/${kept.liveJob}`), responses.jobStatusV2).current_status).toBe(
    "PROCESSING",
  );
  await s.close({ keepData: true });
}

const stateDir = (kept: Kept) => path.join(kept.dataDir, "state");

describe("Kept files: a damaged one refuses the start, names the file, keeps a copy, resets nothing", () => {
  it("state.json", async () => {
    const kept = await keptData();
    await refusesEachDamage(kept, path.join(stateDir(kept), "state.json"));
  });

  it("the export history (exports/history.jsonl), a damaged line named by its number", async () => {
    const kept = await keptData();
    const file = path.join(stateDir(kept), "exports", "history.jsonl");
    await refusesEachDamage(kept, file);
    // A damaged line among good ones: named, not skipped.
    const good = readFileSync(file);
    writeFileSync(file, Buffer.concat([good, Buffer.from("{garbage\n"), good]));
    expect((await refusal(kept.dataDir)).message).toContain(`${file}, line 2,`);
    writeFileSync(file, good);
    await expectNothingLost(kept);
  });

  it("the verification job history (jobs/history.jsonl)", async () => {
    const kept = await keptData();
    await refusesEachDamage(kept, path.join(stateDir(kept), "jobs", "history.jsonl"));
  });

  it("a live job's address list (jobs/<id>.input.json)", async () => {
    const kept = await keptData();
    await refusesEachDamage(kept, path.join(stateDir(kept), "jobs", `${kept.liveJob}.input.json`));
  });

  it("a live job's results (jobs/<id>.results.jsonl)", async () => {
    const kept = await keptData();
    await refusesEachDamage(kept, path.join(stateDir(kept), "jobs", `${kept.liveJob}.results.jsonl`));
  });
});

describe("Kept files read at download: a damaged one refuses that download with a 500 record, nothing else", () => {
  it("an export's CSV and an ended job's results; put back, served again, nothing charged", async () => {
    const kept = await keptData();
    const s = await start({ dataDir: kept.dataDir, verifyRate: STILL });
    const payg = api(s.url, kept.key);
    const files = [
      {
        file: path.join(stateDir(kept), "exports", `${kept.exportId}.csv`),
        path: `/v2/contact/export/${kept.exportId}/download`,
        names: kept.exportId,
      },
      {
        file: path.join(stateDir(kept), "jobs", `${kept.doneJob}.results.jsonl`),
        path: `/v2/jobs/${kept.doneJob}/download`,
        names: `job ${kept.doneJob}`,
      },
    ];
    for (const { file, path: download, names } of files) {
      const good = readFileSync(file);
      const served = (await payg.get(download)).text;
      // Same size, other bytes: only the recorded digest can tell.
      const flipped = Buffer.from(good);
      flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 1;
      for (const [kind, bytes] of Object.entries({ ...damagesOf(good), "same size": flipped })) {
        if (kind === "same size" && names.startsWith("job")) continue; // a line still whole may differ
        writeFileSync(file, bytes);
        const answer = await payg.get(download);
        expect(answer.status, `${names} ${kind}: ${answer.text}`).toBe(500);
        const { detail } = expectDetail(answer, 500);
        expect(detail).toContain(names);
        expect(detail).toMatch(/damaged/);
        expect(readFileSync(file), "left in place").toEqual(bytes);
      }
      writeFileSync(file, good);
      expect((await payg.get(download)).text).toBe(served);
    }
    expect(await creditsOf(payg)).toBe(kept.credits);
  });
});

describe("The generated dataset file", () => {
  it("damaged (truncated, garbage, empty): refused, moved aside so the next start generates it again", async () => {
    const dataDir = tempDir();
    const spec = { rows: 50_000, seed: 7 };
    const file = datasetPath(path.join(dataDir, "dataset"), spec);
    mkdirSync(path.dirname(file), { recursive: true });
    const good = readFileSync(inject("datasetFile"));
    for (const [kind, bytes] of Object.entries(damagesOf(good))) {
      writeFileSync(file, bytes);
      const error = await start({ dataDir, ...spec, datasetFile: undefined }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, kind).toBeInstanceOf(SandboxStartError);
      const { message } = error as Error;
      expect(message).toContain(file);
      expect(message).toMatch(/the next start generates the dataset again/);
      expectCopy(message, bytes);
    }
    expect(readdirSync(path.dirname(file)).filter((n) => n.includes(".damaged-"))).toHaveLength(3);
    // A good file in its place (as a generation would leave it) starts.
    copyFileSync(inject("datasetFile"), file);
    const s = await start({ dataDir, ...spec, datasetFile: undefined });
    expect(await creditsOf(api(s.url, KEYS.payg))).toBe(10_000);
  });
});

describe("The data folder", () => {
  it("missing and impossible to create, or not a folder: a one-line refusal naming it", async () => {
    const base = tempDir();
    const aFile = path.join(base, "a-file");
    writeFileSync(aFile, "");
    await expect(start({ dataDir: path.join(aFile, "data") })).rejects.toThrow(
      `the data folder ${path.join(aFile, "data")} is missing and cannot be created`,
    );
    const error = await start({ dataDir: aFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toBe(
      `the data folder ${aFile} is not a folder; move that file away, or set SANDBOX_DATA_DIR to a folder that is`,
    );
  });

  // chmod does not stop root, so this runs only as another user; a read-only mount refuses the same way.
  it.skipIf(process.getuid?.() === 0)("read-only: a one-line refusal naming it", async () => {
    const dir = tempDir();
    chmodSync(dir, 0o555);
    try {
      await expect(start({ dataDir: dir })).rejects.toThrow(`the data folder ${dir} is read-only`);
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it("`npm run sandbox` (main.ts) prints the refusal as one line and exits 1, no stack trace", () => {
    const aFile = path.join(tempDir(), "a-file");
    writeFileSync(aFile, "");
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/sandbox/main.ts"], {
      env: { ...process.env, SANDBOX_DATA_DIR: path.join(aFile, "data") },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^refusing to start: the data folder \S+ is missing and cannot be created/),
    ]);
  });
});

describe("A failed save", () => {
  it("fails the request that needed it (500 record, nothing charged or changed) and does not wedge later saves", async () => {
    const s = await start({ dataDir: tempDir() });
    const payg = api(s.url, KEYS.payg);
    // An address the verifier knows (a definite answer costs a credit), found before writes fail.
    const known = expectOk(
      await payg.post("/v2/contact/preview", {
        filter: group([cond("EMAIL_ADDRESS_PER", "isNotNull")]),
        limit: 1,
        reveal: "email",
      }),
      responses.preview,
    ).rows[0]?.EMAIL_ADDRESS_PER;
    expect(typeof known).toBe("string");
    const before = await creditsOf(payg);
    const stateFile = path.join(s.dataDir, "state", "state.json");
    // A real write failure, as root too: the new state file cannot be renamed onto a full folder.
    rmSync(stateFile, { force: true });
    mkdirSync(stateFile);
    writeFileSync(path.join(stateFile, "in-the-way"), "");

    const notSaved = (answer: Awaited<ReturnType<typeof payg.get>>) =>
      expect(expectDetail(answer, 500).detail).toMatch(/could not save its state .*nothing was charged/);
    notSaved(await payg.post("/v2/contact/preview", { limit: 3, reveal: "email" }));
    notSaved(await payg.post("/v2/email/verify", { email: known }));
    notSaved(await payg.post("/v2/account/api-keys/rotate"));
    notSaved(await payg.post("/v2/contact/export", { filter, maxRows: 3, reveal: "none" }));
    notSaved(
      await payg.post("/v2/email/verify/batch", undefined, { raw: upload("l.csv", "a@example.com\r\n") }),
    );
    // What answers without saving still answers (the View budget is saved later, not here).
    expect((await payg.post("/v2/contact/view", { limit: 2 })).status).toBe(200);
    expect(await creditsOf(payg)).toBe(before); // the old key still works: the rotation was undone
    expect(expectOk(await payg.get("/v2/contact/exports"), responses.exports).exports).toEqual([]);
    expect(expectOk(await payg.get("/v2/jobs"), responses.processesV2).processes).toEqual([]);

    // The condition clears: the next save succeeds, and the file is current.
    rmSync(stateFile, { recursive: true });
    const preview = expectOk(
      await payg.post("/v2/contact/preview", { limit: 3, reveal: "email" }),
      responses.preview,
    );
    expect(preview.creditsCharged).toBeGreaterThan(0);
    const after = before - preview.creditsCharged;
    expect(await creditsOf(payg)).toBe(after);
    const onDisk = JSON.parse(readFileSync(stateFile, "utf8")) as {
      accounts: Record<string, { credits: number }>;
    };
    expect(onDisk.accounts.acct_payg?.credits).toBe(after);
    await s.close({ keepData: true });
    const again = await start({ dataDir: s.dataDir });
    expect(await creditsOf(api(again.url, KEYS.payg))).toBe(after);
  });
});
