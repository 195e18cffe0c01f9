/**
 * The key store's check before a rotation is sent: the new key must be storable the moment it
 * arrives. Checks at once (one key, several rotations sent together) each use a probe of their own.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { KeyStore } from "../../../src/server/upstream/key-store";

it("20 checks at once on a writable folder all pass, and leave no probe behind", async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "key-store-"));
  const keys = new KeyStore({
    apiKey: "sbx_payg_demo",
    apiKeyFile: null,
    dataDir,
    upstreamLabel: "sandbox",
  });
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => keys.checkWritable()));
  expect(results.filter((r) => r.status === "rejected")).toEqual([]);
  expect(readdirSync(dataDir)).toEqual([]);
});
