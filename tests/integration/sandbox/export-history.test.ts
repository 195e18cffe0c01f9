/**
 * The export history: ended exports leave the state file (rewritten whole on every change) for an
 * append-only archive, and nothing a caller sees changes: status, list, download, cancel's 400 and
 * the balance, across a restart too, and from a state file written before the archive existed.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import { api } from "../../support/sandbox-server";
import {
  cond,
  creditsOf,
  expectDetail,
  expectOk,
  group,
  KEYS,
  sandboxesClosedAfterEach,
  waitExport,
} from "./helpers";

const start = sandboxesClosedAfterEach();
const stateFile = (dataDir: string) => path.join(dataDir, "state", "state.json");
const historyFile = (dataDir: string) => path.join(dataDir, "state", "exports", "history.jsonl");
const stateExports = (dataDir: string) =>
  Object.keys((JSON.parse(readFileSync(stateFile(dataDir), "utf8")) as { exports: object }).exports);

const filter = group([cond("JOB_LEVEL_PER", "eq", { value: "Director" })]);

describe("Export history: ended exports move to the archive, and callers see no difference", () => {
  it("completed and cancelled exports leave the state file; status, list, download and balance hold across a restart", async () => {
    const first = await start();
    const payg = api(first.url, KEYS.payg);
    const before = await creditsOf(payg);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = expectOk(
        await payg.post("/v2/contact/export", {
          filter,
          maxRows: 20 + i,
          reveal: "email",
          name: `history ${i}`,
        }),
        responses.exportStarted,
        202,
      );
      ids.push(started.exportId);
    }
    const done = await Promise.all(ids.map((id) => waitExport(payg, id)));
    expect(done.map((d) => d.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    const charged = done.reduce((sum, d) => sum + d.credits, 0);
    expect(await creditsOf(payg)).toBe(before - charged);
    const download = await payg.get(`/v2/contact/export/${ids[1]}/download`);
    expect(download.status).toBe(200);

    // A cancelled export is history too: a QUEUED one, started behind three long, free AYCE exports.
    const ayceFirst = api(first.url, KEYS.ayce);
    const long: string[] = [];
    for (let i = 0; i < 3; i++)
      long.push(
        expectOk(
          await ayceFirst.post("/v2/contact/export", { filter: null, maxRows: 40_000, reveal: "none" }),
          responses.exportStarted,
          202,
        ).exportId,
      );
    const queued = expectOk(
      await payg.post("/v2/contact/export", { filter, maxRows: 5, reveal: "none" }),
      responses.exportStarted,
      202,
    );
    expect(
      expectOk(await payg.post(`/v2/contact/export/${queued.exportId}/cancel`), responses.exportStatus)
        .status,
    ).toBe("CANCELLED");
    // The long ones end either way (cancelled, or completed already): both are history.
    for (const id of long) await ayceFirst.post(`/v2/contact/export/${id}/cancel`);
    for (const id of long)
      expect(["CANCELLED", "COMPLETED"]).toContain((await waitExport(ayceFirst, id)).status);
    await first.sandbox.close(); // state saved; the history is written as each export ends
    expect(stateExports(first.dataDir)).toEqual([]);
    const archived = readFileSync(historyFile(first.dataDir), "utf8").trim().split("\n");
    expect(archived).toHaveLength(7);
    await first.close({ keepData: true });

    const second = await start({ dataDir: first.dataDir });
    const again = api(second.url, KEYS.payg);
    expect(await creditsOf(again)).toBe(before - charged);
    for (const [i, id] of ids.entries()) {
      const status = expectOk(await again.get(`/v2/contact/export/${id}`), responses.exportStatus);
      expect(status).toMatchObject({ exportId: id, status: "COMPLETED", name: `history ${i}`, rows: 20 + i });
      expectDetail(await again.post(`/v2/contact/export/${id}/cancel`), 400);
    }
    expect((await again.get(`/v2/contact/export/${ids[1]}/download`)).text).toBe(download.text);
    expect(
      expectOk(await again.post(`/v2/contact/export/${queued.exportId}/cancel`), responses.exportStatus)
        .status,
    ).toBe("CANCELLED");
    const list = expectOk(await again.get("/v2/contact/exports"), responses.exports).exports;
    expect(new Set(list.map((e) => e.exportId))).toEqual(new Set([...ids, queued.exportId]));
    const times = list.map((e) => e.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    // Another account sees only its own.
    const ayce = api(second.url, KEYS.ayce);
    const theirs = expectOk(await ayce.get("/v2/contact/exports"), responses.exports).exports;
    expect(new Set(theirs.map((e) => e.exportId))).toEqual(new Set(long));
    expect((await ayce.get(`/v2/contact/export/${ids[0]}`)).status).toBe(404);
    expect(await creditsOf(again)).toBe(before - charged);
  });

  it("a state file that still holds ended exports (written before the archive, or stopped mid-move) is moved on start, never charged again", async () => {
    const first = await start();
    const payg = api(first.url, KEYS.payg);
    const started = expectOk(
      await payg.post("/v2/contact/export", { filter, maxRows: 10, reveal: "email" }),
      responses.exportStarted,
      202,
    );
    const done = await waitExport(payg, started.exportId);
    const balance = await creditsOf(payg);
    await first.close({ keepData: true });

    // Put the ended record back into the state file as an older sandbox kept it, and keep it in
    // the history too (a stop between archiving and the state write): both must come to one.
    const line = readFileSync(historyFile(first.dataDir), "utf8").trim();
    const state = JSON.parse(readFileSync(stateFile(first.dataDir), "utf8")) as {
      exports: Record<string, unknown>;
    };
    state.exports[started.exportId] = JSON.parse(line);
    writeFileSync(stateFile(first.dataDir), JSON.stringify(state));

    const second = await start({ dataDir: first.dataDir });
    const again = api(second.url, KEYS.payg);
    expect(stateExports(second.dataDir)).toEqual([]);
    expect(readFileSync(historyFile(second.dataDir), "utf8").trim().split("\n")).toHaveLength(1);
    const list = expectOk(await again.get("/v2/contact/exports"), responses.exports).exports;
    expect(list.map((e) => e.exportId)).toEqual([started.exportId]);
    expect(
      expectOk(await again.get(`/v2/contact/export/${started.exportId}`), responses.exportStatus),
    ).toMatchObject({
      status: "COMPLETED",
      credits: done.credits,
    });
    expect(await creditsOf(again)).toBe(balance);
    expect(existsSync(historyFile(second.dataDir))).toBe(true);
  });
});
