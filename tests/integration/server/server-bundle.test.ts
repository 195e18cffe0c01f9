import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureServerBuilt } from "../../../src/bundle.mjs";

// `npm start` runs the proxy from its bundle (src/bundle.mjs), made again only when a source changed.
const out = mkdtempSync(path.join(os.tmpdir(), "ab-server-bundle-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the proxy's bundle for npm start", () => {
  it("is built once, used while its sources are unchanged, and built again when one changed or is gone", async () => {
    const first = await ensureServerBuilt(out);
    expect(existsSync(path.join(first, "launcher.mjs"))).toBe(true);
    // The embedded database's worker is found beside the module that starts it.
    expect(existsSync(path.join(first, "embedded-worker.mjs"))).toBe(true);
    const pointer = path.join(out, "current.json");
    const current = JSON.parse(readFileSync(pointer, "utf8")) as { builtAt: number; inputs: string[] };
    expect(current.inputs).toContain(path.resolve("src/launcher.ts"));
    expect(current.inputs).toContain(path.resolve("src/server/db/embedded-worker.ts"));

    expect(await ensureServerBuilt(out)).toBe(first);

    // A source changed after the build (its time after the build's): built again, in a folder of its own.
    writeFileSync(pointer, JSON.stringify({ ...current, builtAt: 0 }));
    const second = await ensureServerBuilt(out);
    expect(second).not.toBe(first);
    expect(existsSync(path.join(second, "launcher.mjs"))).toBe(true);
    // The older build stays a day: a proxy started from it reads its worker file again when it reopens its database.
    expect(existsSync(path.join(first, "embedded-worker.mjs"))).toBe(true);

    // A source it was made from is gone (a file moved): built again.
    const latest = JSON.parse(readFileSync(pointer, "utf8")) as { inputs: string[] };
    writeFileSync(
      pointer,
      JSON.stringify({ ...latest, inputs: [...latest.inputs, path.resolve("src/gone.ts")] }),
    );
    expect(await ensureServerBuilt(out)).not.toBe(second);
  });
});
