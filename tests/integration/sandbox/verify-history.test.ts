/**
 * The verification job history: ended jobs leave the state file (rewritten whole on every step of
 * every job) for an append-only archive, and nothing a caller sees changes: status, results, the
 * CSV, cancel's 400, the active list and the balance, across a restart too, and from a state file
 * written before the archive existed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import { api } from "../../support/sandbox-server";
import {
  creditsOf,
  expectDetail,
  expectOk,
  KEYS,
  sandboxesClosedAfterEach,
  upload,
  waitJob,
} from "./helpers";

const start = sandboxesClosedAfterEach();
const stateFile = (dataDir: string) => path.join(dataDir, "state", "state.json");
const historyFile = (dataDir: string) => path.join(dataDir, "state", "jobs", "history.jsonl");
const stateJobs = (dataDir: string) =>
  Object.keys((JSON.parse(readFileSync(stateFile(dataDir), "utf8")) as { jobs: object }).jobs);
const historyLines = (dataDir: string) => readFileSync(historyFile(dataDir), "utf8").trim().split("\n");

const addresses = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);
const batch = async (client: ReturnType<typeof api>, emails: string[]) =>
  expectOk(
    await client.post("/v2/email/verify/batch", undefined, {
      raw: upload("list.csv", `${emails.join("\r\n")}\r\n`),
    }),
    responses.batchUploadedV2,
  ).process_id;

describe("Verification job history: ended jobs move to the archive, and callers see no difference", () => {
  it("completed and cancelled jobs leave the state file; status, results, cancel and balance hold across a restart", async () => {
    // Slow enough that the second job is still running when it is cancelled.
    const first = await start({ verifyRate: 20 });
    const payg = api(first.url, KEYS.payg);
    const done = await batch(payg, addresses(3, "done"));
    expect((await waitJob(payg, done, ["COMPLETED"])).current_status).toBe("COMPLETED");
    const csv = await payg.get(`/v2/jobs/${done}/download`);
    expect(csv.status).toBe(200);

    const long = await batch(payg, addresses(400, "long"));
    await waitJob(payg, long, ["PROCESSING"]);
    expect(
      expectOk(await payg.get("/v2/jobs"), responses.processesV2).processes.map((p) => p.process_id),
    ).toEqual([long]);
    expectOk(await payg.post(`/v2/jobs/${long}/cancel`), responses.jobStatusV2);
    const cancelled = await waitJob(payg, long, ["CANCELLED"]);
    const balance = await creditsOf(payg);

    await first.sandbox.close(); // state saved; the history is written as each job ends
    expect(stateJobs(first.dataDir)).toEqual([]);
    expect(historyLines(first.dataDir)).toHaveLength(2);
    await first.close({ keepData: true });

    const second = await start({ dataDir: first.dataDir });
    const again = api(second.url, KEYS.payg);
    expect(await creditsOf(again)).toBe(balance);
    expect(expectOk(await again.get(`/v2/jobs/${done}`), responses.jobStatusV2)).toMatchObject({
      process_id: done,
      current_status: "COMPLETED",
    });
    expect((await again.get(`/v2/jobs/${done}/download`)).text).toBe(csv.text);
    expect(expectDetail(await again.post(`/v2/jobs/${done}/cancel`), 400).detail).toMatch(/not_cancellable/);
    expect(expectOk(await again.get(`/v2/jobs/${long}`), responses.jobStatusV2)).toMatchObject({
      current_status: "CANCELLED",
      message: cancelled.message,
    });
    expect(expectDetail(await again.post(`/v2/jobs/${long}/cancel`), 400).detail).toMatch(
      /already_cancelled/,
    );
    // v1 reads the same archived jobs: the partial results of the cancelled one.
    const partial = await again.post("/v1/batch-download", { process_id: String(long) });
    expect(partial.status).toBe(200);
    const processed = Number(/after (\d+) of/.exec(cancelled.message)![1]);
    expect((partial.body as unknown[]).length).toBe(processed);
    expect(expectOk(await again.get("/v2/jobs"), responses.processesV2).processes).toEqual([]);
    // Another account cannot read them; new ids keep counting up after the archived ones.
    expect((await api(second.url, KEYS.ayce).get(`/v2/jobs/${done}`)).status).toBe(400);
    expect(await batch(again, addresses(1, "next"))).toBeGreaterThan(long);
  });

  it("a state file that still holds ended jobs (written before the archive, or stopped mid-move) is moved on start, never charged again", async () => {
    const first = await start();
    const payg = api(first.url, KEYS.payg);
    const id = await batch(payg, addresses(2, "old"));
    await waitJob(payg, id, ["COMPLETED"]);
    const balance = await creditsOf(payg);
    await first.close({ keepData: true });

    // Put the ended record back into the state file as an older sandbox kept it, and keep it in the
    // history too (a stop between archiving and the state write): both must come to one.
    const state = JSON.parse(readFileSync(stateFile(first.dataDir), "utf8")) as {
      jobs: Record<string, unknown>;
    };
    state.jobs[String(id)] = JSON.parse(historyLines(first.dataDir)[0]!);
    writeFileSync(stateFile(first.dataDir), JSON.stringify(state));

    const second = await start({ dataDir: first.dataDir });
    const again = api(second.url, KEYS.payg);
    expect(stateJobs(second.dataDir)).toEqual([]);
    expect(historyLines(second.dataDir)).toHaveLength(1);
    expect(expectOk(await again.get(`/v2/jobs/${id}`), responses.jobStatusV2).current_status).toBe(
      "COMPLETED",
    );
    expect(await creditsOf(again)).toBe(balance);
  });
});
