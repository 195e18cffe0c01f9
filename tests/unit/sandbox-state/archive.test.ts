import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Archive } from "../../../src/sandbox/state/archive";

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

const open = () => Archive.open<Rec>(file, describeRec);

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

  it("skips a damaged complete line and keeps every record after it", () => {
    writeFileSync(
      file,
      `${JSON.stringify({ id: "e1", owner: "o", note: "a" })}\n{damaged\n${JSON.stringify({ id: "e2", owner: "o", note: "b" })}\n`,
    );
    const a = open();
    expect(a.ownedBy("o").map((r) => r.id)).toEqual(["e1", "e2"]);
    const size = statSync(file).size;
    a.add({ id: "e3", owner: "o", note: "c" });
    expect(statSync(file).size).toBeGreaterThan(size);
    expect(a.get("e3")?.note).toBe("c");
    a.close();
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
