/**
 * The state store: a damaged state file refuses the start (a copy kept, nothing reset), and a
 * failed write neither wedges later saves nor keeps a change a caller was told failed.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxStartError } from "../../../src/sandbox/state/damage";
import { type State, StateSaveError, StateStore } from "../../../src/sandbox/state/store";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "store-test-"));
  file = path.join(dir, "state.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const onDisk = () => JSON.parse(readFileSync(file, "utf8")) as State;
const copies = () => readdirSync(dir).filter((n) => n.startsWith("state.json.damaged-"));

/** Makes the next writes fail for real (a rename onto a folder that is not empty), as root too. */
function blockWrites() {
  rmSync(file, { force: true });
  mkdirSync(file);
  writeFileSync(path.join(file, "in-the-way"), "");
}
const unblockWrites = () => rmSync(file, { recursive: true, force: true });

describe("StateStore: a state file it cannot use refuses the start; it is never reset", () => {
  it("a missing file is a fresh start with the initial credits", () => {
    expect(StateStore.open(dir).state.accounts.acct_payg?.credits).toBe(10_000);
  });

  it("truncated, garbage, empty, or not a state: refused, naming the file, a copy kept, the file untouched", async () => {
    const store = StateStore.open(dir);
    store.state.accounts.acct_payg!.credits = 1234;
    await store.save();
    const good = readFileSync(file, "utf8");
    const damages = {
      truncated: good.slice(0, good.length / 2),
      garbage: "\u0000\u0017garbage}{",
      empty: "",
      "not a state": JSON.stringify({ version: 1, accounts: {} }),
    };
    for (const [kind, bytes] of Object.entries(damages)) {
      writeFileSync(file, bytes);
      let error: unknown;
      try {
        StateStore.open(dir);
      } catch (e) {
        error = e;
      }
      expect(error, kind).toBeInstanceOf(SandboxStartError);
      const message = (error as Error).message;
      expect(message).toContain(`${file} is damaged`);
      expect(message).toMatch(/restore it from a backup/);
      const copy = message.match(/a copy is kept at (\S+);/)?.[1];
      expect(copy, message).toBeDefined();
      expect(readFileSync(copy!, "utf8")).toBe(bytes);
      expect(readFileSync(file, "utf8")).toBe(bytes);
    }
    expect(copies()).toHaveLength(Object.keys(damages).length);
    // Put back, nothing was reset.
    writeFileSync(file, good);
    expect(StateStore.open(dir).state.accounts.acct_payg?.credits).toBe(1234);
  });

  it("an unreadable state file (a folder in its place) is refused too, not taken for a fresh start", () => {
    mkdirSync(file);
    expect(() => StateStore.open(dir)).toThrow(SandboxStartError);
    expect(() => StateStore.open(dir)).toThrow(/state\.json is damaged \(unreadable/);
  });
});

describe("StateStore: a failed save does not wedge later saves", () => {
  it("fails loudly while writes fail, then the next save succeeds and the file is current", async () => {
    const logged: unknown[] = [];
    const store = StateStore.open(dir, (m) => logged.push(m));
    await store.save();
    blockWrites();
    store.state.accounts.acct_payg!.credits = 9000;
    await expect(store.save()).rejects.toBeInstanceOf(StateSaveError);
    store.state.accounts.acct_payg!.credits = 8000;
    await expect(store.save()).rejects.toThrow(/could not save its state/);
    // Two concurrent saves while failing: both are told.
    await expect(Promise.all([store.save(), store.save()])).rejects.toBeInstanceOf(StateSaveError);
    expect(logged.filter((m) => m instanceof StateSaveError)).toHaveLength(1); // once, not per write
    // No temp files are left behind by the failed writes.
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    unblockWrites();
    store.state.accounts.acct_payg!.credits = 7000;
    await store.save();
    expect(onDisk().accounts.acct_payg?.credits).toBe(7000);
    expect(String(logged.at(-1))).toMatch(/saved its state again after 3 failed writes/);
    // saveSoon, failing: no unhandled rejection, and the next save catches up.
    blockWrites();
    store.state.accounts.acct_payg!.credits = 6000;
    store.saveSoon();
    await new Promise((r) => setTimeout(r, 300));
    unblockWrites();
    await store.close();
    expect(onDisk().accounts.acct_payg?.credits).toBe(6000);
  });

  it("commit(): a change whose save failed is undone in memory, so no later save writes it", async () => {
    const store = StateStore.open(dir);
    await store.save();
    const account = store.state.accounts.acct_payg!;
    blockWrites();
    account.credits -= 25;
    await expect(store.commit(() => (account.credits += 25))).rejects.toBeInstanceOf(StateSaveError);
    expect(account.credits).toBe(10_000);
    unblockWrites();
    await store.save();
    expect(onDisk().accounts.acct_payg?.credits).toBe(10_000);
  });
});
