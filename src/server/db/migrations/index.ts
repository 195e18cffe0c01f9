import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { migration as m001 } from "./001-journal-users-sessions";
import { migration as m002 } from "./002-journal-sent-at";
import { migration as m003 } from "./003-team";
import { migration as m004 } from "./004-owned-ledger";
import { migration as m005 } from "./005-suppression-exports";
import { migration as m006 } from "./006-caps-approvals";
import { migration as m007 } from "./007-tool-spends";
import { migration as m008 } from "./008-contact-reservations";
import { migration as m009 } from "./009-journal-unknown-row";
import { migration as m010 } from "./010-settlement-attempts";
import { migration as m011 } from "./011-ledger-one-row-per-purchase";
import { migration as m012 } from "./012-caps-belong-to-a-person";
import { migration as m013 } from "./013-owned-contacts-by-email";
import { migration as m014 } from "./014-row-marks";
import { migration as m015 } from "./015-settlement-claimer";
import { migration as m016 } from "./016-backups-restores";
import { migration as m017 } from "./017-open-audiences";

/**
 * The one set of migrations, for PGlite and PostgreSQL alike, one per file, named in the order they
 * run. Append, never edit: a database records which ran. From 013 on, each has a `down`, so that a
 * test can take a database back to the schema an older release left (`Migrator.migrateTo`). Kysely's migrator takes a PostgreSQL
 * advisory lock around them, so two instances starting together on one server run each once.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "001-journal-users-sessions": m001,
  "002-journal-sent-at": m002,
  "003-team": m003,
  "004-owned-ledger": m004,
  "005-suppression-exports": m005,
  "006-caps-approvals": m006,
  "007-tool-spends": m007,
  "008-contact-reservations": m008,
  "009-journal-unknown-row": m009,
  "010-settlement-attempts": m010,
  "011-ledger-one-row-per-purchase": m011,
  "012-caps-belong-to-a-person": m012,
  "013-owned-contacts-by-email": m013,
  "014-row-marks": m014,
  "015-settlement-claimer": m015,
  "016-backups-restores": m016,
  "017-open-audiences": m017,
};

/** The migrations, for Kysely's Migrator (tests migrate step by step with it). */
export const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; throws with the failing migration's name. */
/** Brings the schema to the latest migration; resolves to how many were applied. */
export async function migrate(db: Kysely<unknown>): Promise<number> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "(none)";
    throw new Error(
      `database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return results?.filter((result) => result.status === "Success").length ?? 0;
}
