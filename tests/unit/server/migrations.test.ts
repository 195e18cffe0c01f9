import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/server/db/migrations";

/** One migration per file, each named in the order it runs, every file in the set and none twice. */
describe("the proxy's migrations", () => {
  const dir = new URL("../../../src/server/db/migrations/", import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f !== "index.ts")
    .map((f) => f.replace(/\.ts$/, ""))
    .sort();

  it("are one file each, numbered without gaps, all of them in the set in that order", () => {
    expect(Object.keys(MIGRATIONS)).toEqual(files);
    for (const [i, name] of files.entries())
      expect(name).toMatch(new RegExp(`^${String(i + 1).padStart(3, "0")}-[a-z0-9-]+$`));
  });
});
