import type { ColumnType, Generated } from "kysely";

/**
 * The proxy's tables, as Kysely sees them (migrations.ts makes them). Times are `timestamptz`,
 * read back as Date by both drivers.
 */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface Tables {
  proxy_instances: ProxyInstanceTable;
  spend_journal: SpendJournalTable;
  users: UserTable;
  sessions: SessionTable;
  proxy_settings: SettingTable;
}

/** Every running proxy process: a pending spend whose owner stopped beating was cut off by a crash. */
export interface ProxyInstanceTable {
  id: string;
  started_at: Timestamp;
  seen_at: Timestamp;
}

export type JournalState = "pending" | "done" | "unknown";

/** One spending request per (caller, operation, Idempotency-Key), written before it leaves. */
export interface SpendJournalTable {
  /** sha256 of caller and key (not the operation: the same key for another operation is a conflict). */
  id: string;
  caller: string;
  operation: string;
  /** sha256 of the canonical request (params, query, body, file): the same key for other details is refused. */
  fingerprint: string;
  state: JournalState;
  /** The proxy instance that sent it. */
  owner: string;
  /** Exports only: the tag put in the export's name, to find it again after a crash. */
  export_tag: string | null;
  created_at: Timestamp;
  /** When the latest attempt began (a take-over after a lost export start sets it again). */
  sent_at: Timestamp | null;
  finished_at: Timestamp | null;
  status: number | null;
  headers: ColumnType<[string, string][] | null, string | null, string | null>;
  /** The answer (paid contact data, for enrich/preview): kept only until the entry expires. */
  body: string | null;
}

export interface UserTable {
  name: string;
  password_hash: string;
  created_at: Generated<Timestamp>;
}

export interface SessionTable {
  /** sha256 of the cookie's token: the table never holds a usable session. */
  id_hash: string;
  user_name: string;
  created_at: Generated<Timestamp>;
  last_seen: Timestamp;
}

/** Small facts the proxy keeps about itself (which USERS_FILE was imported, an interrupted rotation). */
export interface SettingTable {
  name: string;
  value: ColumnType<unknown, string, string>;
  updated_at: Timestamp;
}
