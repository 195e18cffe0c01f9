import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Archive } from "../../../src/sandbox/state/archive";
import { DamagedFileError } from "../../../src/sandbox/state/damage";

interface Rec {
  id: string;
  owner: string;
  note: string;
}
const describeRec = (r: Rec) => ({ id: r.id, owner: r.owner });

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "archive-test-"));
  file = path.join(dir, "history.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const recSchema = z.object({ id: z.string(), owner: z.string(), note: z.string() });
const open = (expectBytes?: number) =>
  Archive.open<Rec>(file, { describe: describeRec, schema: recSchema, expectBytes });

describe("Archive: ended records on disk, an offset index in memory", () => {
  it("gives back what was added, by id and by owner in the order added, after a reopen too", () => {
    const a = open();
    const recs: Rec[] = [
      { id: "e1", owner: "acct_a", note: "first" },
      { id: "e2", owner: "acct_b", note: 'ünïcödé, "quotes", \n newline' },
      { id: "e3", owner: "acct_a", note: "third" },
    ];
    for (const r of recs) a.add(r);
    expect(a.get("e2")).toEqual(recs[1]);
    expect(a.get("nope")).toBeUndefined();
    expect(a.ownedBy("acct_a")).toEqual([recs[0], recs[2]]);
    a.close();
    const b = open();
    expect(b.has("e1")).toBe(true);
    expect(b.get("e2")).toEqual(recs[1]);
    expect(b.ownedBy("acct_a")).toEqual([recs[0], recs[2]]);
    expect(b.ownedBy("acct_c")).toEqual([]);
    b.close();
  });

  it("keeps the first record of an id: a second add is ignored, on disk too", () => {
    const a = open();
    a.add({ id: "e1", owner: "o", note: "first" });
    a.add({ id: "e1", owner: "o", note: "second" });
    expect(a.get("e1")?.note).toBe("first");
    a.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("cuts a torn last line (a stop mid-append) and appends cleanly after it", () => {
    const a = open();
    a.add({ id: "e1", owner: "o", note: "kept" });
    a.close();
    appendFileSync(file, '{"id":"e2","owner":"o","no');
    const b = open();
    expect(b.has("e2")).toBe(false);
    b.add({ id: "e3", owner: "o", note: "after" });
    expect(b.ownedBy("o").map((r) => r.id)).toEqual(["e1", "e3"]);
    b.close();
    const c = open();
    expect(c.ownedBy("o").map((r) => r.note)).toEqual(["kept", "after"]);
    c.close();
  });

  it("refuses a damaged complete line (garbage, empty, not a record), naming its line, instead of dropping it", () => {
    const good = (id: string) => JSON.stringify({ id, owner: "o", note: id });
    for (const bad of ["{damaged", "", '{"id":"e2"}', "42"]) {
      writeFileSync(file, `${good("e1")}\n${bad}\n${good("e3")}\n`);
      const before = readFileSync(file, "utf8");
      let error: unknown;
      try {
        open().close();
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(DamagedFileError);
      expect((error as DamagedFileError).line).toBe(2);
      expect((error as DamagedFileError).message).toContain(`${file}, line 2,`);
      // Nothing was cut or rewritten.
      expect(readFileSync(file, "utf8")).toBe(before);
    }
  });

  it("refuses a file shorter than the size of whole records last recorded (truncated, emptied)", () => {
    const a = open();
    a.add({ id: "e1", owner: "o", note: "a" });
    a.add({ id: "e2", owner: "o", note: "b" });
    const recorded = a.bytes;
    a.close();
    expect(statSync(file).size).toBe(recorded);
    open(recorded).close(); // exactly as recorded: fine
    const full = readFileSync(file);
    for (const cut of [recorded - 1, full.indexOf(10) + 1, 0]) {
      writeFileSync(file, full.subarray(0, cut));
      expect(() => open(recorded), `cut at ${cut}`).toThrow(/truncated/);
    }
    // More than recorded is normal: appends after the state file was last written.
    writeFileSync(file, full);
    open(recorded - 10).close();
  });

  it("keeps a copy of the file before cutting a torn last line", () => {
    writeFileSync(file, `${JSON.stringify({ id: "e1", owner: "o", note: "a" })}\n{"id":"e2","ow`);
    const logged: string[] = [];
    const a = Archive.open<Rec>(file, {
      describe: describeRec,
      schema: recSchema,
      log: (m) => logged.push(m),
    });
    expect(a.ownedBy("o").map((r) => r.id)).toEqual(["e1"]);
    a.close();
    const copies = readdirSync(dir).filter((n) => n.startsWith("history.jsonl.damaged-"));
    expect(copies).toHaveLength(1);
    expect(readFileSync(path.join(dir, copies[0]!), "utf8")).toContain('{"id":"e2","ow');
    expect(logged.join("\n")).toContain(file);
  });

  it("indexes across read chunks: records larger and more numerous than one read", () => {
    const a = open();
    const big = "x".repeat(300_000);
    for (let i = 0; i < 8; i++) a.add({ id: `e${i}`, owner: "o", note: `${i}${big}` });
    a.close();
    const b = open();
    expect(b.ownedBy("o").map((r) => r.note.slice(0, 1))).toEqual(["0", "1", "2", "3", "4", "5", "6", "7"]);
    expect(b.get("e5")?.note.length).toBe(big.length + 1);
    b.close();
  });

  it("property: any records, any torn tail, reopened: exactly the complete records, first of each id", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.constantFrom("a", "b", "c", "d", "e"),
            owner: fc.constantFrom("x", "y"),
            note: fc.string(),
          }),
          { maxLength: 12 },
        ),
        fc.string({ maxLength: 20 }).filter((s) => !s.includes("\n")),
        (recs, tail) => {
          rmSync(file, { force: true });
          const a = open();
          for (const r of recs) a.add(r);
          a.close();
          appendFileSync(file, tail);
          const b = open();
          const firsts = new Map<string, Rec>();
          for (const r of recs) if (!firsts.has(r.id)) firsts.set(r.id, r);
          for (const owner of ["x", "y"])
            expect(b.ownedBy(owner)).toEqual([...firsts.values()].filter((r) => r.owner === owner));
          b.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
