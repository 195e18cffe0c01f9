/**
 * Every file the proxy keeps, damaged three ways (empty, cut short, garbage): the proxy refuses to
 * start with a message that names the file and the way out, and leaves the file as it was (it is
 * the copy of what could not be read). Never a silent fall back to the configured key, to no
 * users, or to an empty database.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { createProxy } from "../../../src/server/app";
import { ConfigError, configFromEnv } from "../../../src/server/config";
import { hashPassword } from "../../../src/server/team/passwords";
import { seedDatabaseFolder } from "../../support/database-image";
import { fakeUpstream } from "../../support/proxy-server";

const DAMAGE = {
  empty: () => "",
  "cut short": (whole: string) => whole.slice(0, Math.min(64, Math.floor(whole.length / 2))),
  garbage: () => "\u0000\u0007\ufffd\u0001garbage\u0000",
} as const;

const upstream = fakeUpstream();

async function refusal(env: Record<string, string>): Promise<string> {
  try {
    const proxy = await createProxy(configFromEnv({ PORT: "0", LOG_LEVEL: "silent", ...env }), upstream);
    await proxy.close();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the proxy started on a damaged file");
}

/** A data folder whose embedded database is already made (from the run's image): the damage is elsewhere. */
function fresh() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "damaged-proxy-"));
  seedDatabaseFolder(dataDir, inject("databaseImage"));
  return dataDir;
}

describe("damaged files of the proxy", () => {
  for (const [how, damage] of Object.entries(DAMAGE)) {
    it(`DATA_DIR/api-key (the rotated key), ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "api-key");
      const whole = `${JSON.stringify({ upstream: "sandbox", key: "sbx_rotated_key_123456", rotatedAt: "2026-11-25T00:00:00Z" })}\n`;
      writeFileSync(file, damage(whole));
      const before = readFileSync(file);
      const message = await refusal({ DATA_DIR: dataDir });
      expect(message).toContain(file);
      expect(message).toMatch(/damaged.*restore it from a backup/);
      expect(readFileSync(file)).toEqual(before);
    });

    // A plain key cut short still looks like a key: only the service can tell (its 401 is shown).
    it.skipIf(how === "cut short")(`API_KEY_FILE, ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "key");
      writeFileSync(file, damage("sbx_live_key_abcdef\n"));
      const before = readFileSync(file);
      const message = await refusal({
        DATA_DIR: dataDir,
        UPSTREAM_URL: "http://127.0.0.1:9",
        API_KEY_FILE: file,
      });
      expect(message).toContain(file);
      expect(readFileSync(file)).toEqual(before);
    });

    it(`USERS_FILE, ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "users");
      writeFileSync(file, damage(`ada:${await hashPassword("ada-password-1")}\n`));
      const before = readFileSync(file);
      const message = await refusal({ DATA_DIR: dataDir, USERS_FILE: file });
      expect(message).toContain(file);
      expect(readFileSync(file)).toEqual(before);
    });

    it(`the embedded database (its control file), ${how}`, async () => {
      const dataDir = fresh();
      // A database made by a proxy that ran once.
      const first = await createProxy(
        configFromEnv({ PORT: "0", LOG_LEVEL: "silent", DATA_DIR: dataDir }),
        upstream,
      );
      await first.close();
      const file = path.join(dataDir, "db", "global", "pg_control");
      writeFileSync(file, damage(readFileSync(file, "latin1")), "latin1");
      const message = await refusal({ DATA_DIR: dataDir });
      expect(message).toContain(path.join(dataDir, "db"));
      expect(message).toMatch(/cannot be opened.*left as it is.*restore the folder from a backup/);
    });
  }
});
