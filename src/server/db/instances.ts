import { randomUUID } from "node:crypto";
import { type RawBuilder, sql } from "kysely";
import type { Database } from "./database";

const HEARTBEAT_MS = 2000;
/** An instance whose heartbeat is older than this is gone (killed, or cut off from the database). */
const GONE_AFTER_MS = 10_000;
/** A row of an instance gone this long is forgotten: nothing names it any more. */
const FORGOTTEN_AFTER_MS = 24 * 3600_000;

const silentFor = (ms: number) => sql<boolean>`seen_at < now() - make_interval(secs => ${ms / 1000})`;

/**
 * The proxies running on the store (`proxy_instances`, owned here): each beats every 2 s, by the
 * database's clock, so that instances on several machines can tell which of them has stopped and
 * take over what it left under way. On the embedded database one process holds the store at a
 * time: any instance but this one is an earlier run.
 */
export class ProxyInstances {
  readonly id = randomUUID();
  private beat: NodeJS.Timeout | null = null;

  constructor(private readonly database: Database) {}

  /** Registers this instance and starts its heartbeat (a failed beat is retried by the next). */
  async register(): Promise<void> {
    const { db } = this.database;
    await db
      .insertInto("proxy_instances")
      .values({ id: this.id, started_at: sql`now()`, seen_at: sql`now()` })
      .execute();
    this.beat = setInterval(() => {
      void db
        .updateTable("proxy_instances")
        .set({ seen_at: sql`now()` })
        .where("id", "=", this.id)
        .execute()
        .catch(() => {});
    }, HEARTBEAT_MS);
    this.beat.unref();
  }

  /** Stops the heartbeat and strikes this instance off: what it named is now another's to take. */
  async strikeOff(): Promise<void> {
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
    await this.database.db
      .deleteFrom("proxy_instances")
      .where("id", "=", this.id)
      .execute()
      .catch(() => {});
  }

  /** True where the instance named in `column` has stopped (a condition for another table's query). */
  gone(column: string): RawBuilder<boolean> {
    return this.database.kind === "embedded"
      ? sql<boolean>`${sql.ref(column)} <> ${this.id}`
      : sql<boolean>`not exists (select 1 from proxy_instances where proxy_instances.id = ${sql.ref(column)}
          and proxy_instances.seen_at > now() - make_interval(secs => ${GONE_AFTER_MS / 1000}))`;
  }

  /** Whether another instance, `owner`, has stopped. */
  async stopped(owner: string): Promise<boolean> {
    if (owner === this.id) return false;
    if (this.database.kind === "embedded") return true;
    const instance = await this.database.db
      .selectFrom("proxy_instances")
      .select(silentFor(GONE_AFTER_MS).as("silent"))
      .where("id", "=", owner)
      .executeTakeFirst();
    return !instance || instance.silent;
  }

  /** Forgets the rows of instances long gone. */
  async forgetLongGone(): Promise<void> {
    await this.database.db.deleteFrom("proxy_instances").where(silentFor(FORGOTTEN_AFTER_MS)).execute();
  }
}

/**
 * Strikes off every instance a restored copy names: they ran on the store it was taken from, not on
 * this one (a restore is refused while a proxy runs here).
 */
export async function forgetInstances(db: Database["db"]): Promise<void> {
  await db.deleteFrom("proxy_instances").execute();
}
