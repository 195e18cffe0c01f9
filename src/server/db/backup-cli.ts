/**
 * `npm run backup -- [FILE]` and `npm run restore -- FILE`: the team's store, with the proxy's own
 * configuration (DATA_DIR, or DATABASE_URL). A backup is taken while the proxy runs; a restore
 * only while none runs on the store. See backup.ts, and the server README's "Backups".
 * Exit codes: 0 done, 1 refused or failed (one line), 2 usage.
 */
import path from "node:path";
import { ConfigError, configFromEnv } from "../config";
import { restoreBackup, takeBackup } from "./backup";

const USAGE = `usage:
  npm run backup -- [FILE]   copy the team's store to FILE (default: backups/store-<time>.<kind>)
  npm run restore -- FILE    put a backup back (no proxy may run on the store; the store it replaces is kept aside)`;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main([command, file, ...extra]: string[]): Promise<number> {
  if (extra.length > 0 || (command !== "backup" && command !== "restore")) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = configFromEnv(process.env);
  const store = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  if (command === "backup") {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const target = path.resolve(
      file ?? path.join("backups", `store-${stamp}.${store.databaseUrl ? "pgdump" : "tar.gz"}`),
    );
    const taken = await takeBackup(store, target);
    say(
      `backup written to ${taken.file} (${taken.bytes} bytes, ${taken.how}): the store as of ${taken.takenAt.toISOString()}. It holds the team's people (password hashes), sessions and purchase records: keep it where only operators can read it.`,
    );
    return 0;
  }
  if (!file) {
    process.stderr.write(`give the backup to restore\n${USAGE}\n`);
    return 2;
  }
  const restored = await restoreBackup(store, path.resolve(file));
  say(
    `restored ${file}: the store as of ${restored.backupTakenAt?.toISOString() ?? "an unknown moment"}.` +
      (restored.setAside ? ` The store it replaced is kept in ${restored.setAside}.` : "") +
      " Purchases made after that moment are not in it: their keys are answered 'outcome unknown', never sent again.",
  );
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `failed: ${String((error as Error)?.message ?? error)}`}\n`,
  );
  process.exitCode = 1;
}
