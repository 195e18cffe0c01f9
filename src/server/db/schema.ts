import type { ColumnType, Generated } from "kysely";

/**
 * The proxy's tables, as Kysely sees them (the files of migrations/ make them). Times are `timestamptz`,
 * read back as Date by both drivers.
 */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface Tables {
  proxy_instances: ProxyInstanceTable;
  spend_journal: SpendJournalTable;
  users: UserTable;
  sessions: SessionTable;
  proxy_settings: SettingTable;
  audiences: AudienceTable;
  audience_versions: AudienceVersionTable;
  open_audiences: OpenAudienceTable;
  audit_log: AuditTable;
  team_jobs: TeamJobTable;
  owned_contacts: OwnedContactTable;
  ledger: LedgerTable;
  export_purchases: ExportPurchaseTable;
  verify_purchases: VerifyPurchaseTable;
  suppression_lists: SuppressionListTable;
  suppression_entries: SuppressionEntryTable;
  team_caps: TeamCapTable;
  person_caps: PersonCapTable;
  approvals: ApprovalTable;
  spend_holds: SpendHoldTable;
  contact_reservations: ContactReservationTable;
  row_marks: RowMarkTable;
  store_backups: StoreBackupTable;
  store_restores: StoreRestoreTable;
}

/** A backup's moment, written before the copy is taken, so the copy holds it (backup.ts). */
export interface StoreBackupTable {
  id: Generated<string>;
  taken_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A restore: keys made before it and missing from the journal may have been lost with it. */
export interface StoreRestoreTable {
  id: Generated<string>;
  restored_at: ColumnType<Date, Date | string | undefined, Date | string>;
  backup_taken_at: Timestamp | null;
}

/** A change of a marked table's row count, written by the database's triggers (migration 014). */
export interface RowMarkTable {
  id: Generated<string>;
  table_name: string;
  delta: string;
  at: Generated<Timestamp>;
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
  /** The ledger row (JSON of LedgerRowValues) written if its outcome is never learned; null for none. */
  unknown_row: ColumnType<string | null, string | null | undefined, string | null>;
  finished_at: Timestamp | null;
  status: number | null;
  headers: ColumnType<[string, string][] | null, string | null, string | null>;
  /** The answer (paid contact data, for enrich/preview): kept only until the entry expires. */
  body: string | null;
}

export interface UserTable {
  name: string;
  password_hash: string;
  role: "admin" | "buyer" | "analyst";
  /** `file`: imported from USERS_FILE (changed there only); `team`: the Team page or `npm run users`. */
  source: "file" | "team";
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_by: string | null;
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

/** A JSON column: written as JSON text, read back parsed (both drivers parse jsonb). */
type Json<T> = ColumnType<T, string, string>;
/** bigint comes back as a string from node-postgres: read with Number(). */
type BigCount = ColumnType<string | number | bigint | null, number | null, number | null>;

/** A saved audience: its latest version, inline (the list needs no join). */
export interface AudienceTable {
  id: string;
  name: string;
  owner: string;
  shared: boolean;
  filter: Json<unknown>;
  last_count: BigCount;
  version: number;
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
  updated_by: string;
  /** Set by a delete (soft: versions kept, undelete clears it). */
  deleted_at: Timestamp | null;
  /** The browser's own id of an audience moved from it: (owner, client_id) is unique. */
  client_id: string | null;
}

export interface AudienceVersionTable {
  audience_id: string;
  version: number;
  name: string;
  filter: Json<unknown>;
  shared: boolean;
  last_count: BigCount;
  saved_at: Timestamp;
  saved_by: string;
  restored_from: number | null;
}

/** The audience a person has open, and the version their edits start from. */
export interface OpenAudienceTable {
  person: string;
  audience_id: string;
  version: number;
  working_key: string;
  opened_at: Timestamp;
}

export interface AuditTable {
  id: ColumnType<string | number, never, never>;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
  actor: string;
  action: string;
  target: string | null;
  summary: string;
}

/** Jobs started through the proxy and who started them (cancel rights, the export list's "by"). */
export interface TeamJobTable {
  kind: "export" | "verification";
  job_id: string;
  person: string;
  at: Timestamp;
}

/**
 * A contact row the service delivered to the team (Enrich, Preview), written in the transaction
 * that commits the journal's answer. Served again for nothing while younger than the retention.
 */
export interface OwnedContactTable {
  id: ColumnType<string | number, never, never>;
  rbid_pao: string;
  rbid_per: string | null;
  revealed_email: boolean;
  revealed_mobile: boolean;
  /** The request's columns, canonical (sorted, unique; '' for the default set): served only to the same. */
  columns_key: string;
  /** The row exactly as the service delivered it. */
  row: Json<Record<string, unknown>>;
  bought_at: Timestamp;
  bought_by: string;
  /** The journal entry's id (a hash of caller and Idempotency-Key). */
  purchase_id: string;
  operation: string;
}

import type { LedgerOutcome } from "../../contract/ledger";

export type { LedgerOutcome };

/** One row per spend outcome, written in the transaction of the journal's final state. */
export interface LedgerTable {
  id: ColumnType<string | number, never, never>;
  at: Timestamp;
  person: string;
  operation: string;
  audience_name: string | null;
  filter: ColumnType<unknown, string | null, string | null>;
  /** Rows in the answer (bought and served from the store). */
  rows: number;
  /** Of those, served from the team's store for nothing. */
  rows_free: number;
  credits_estimated: number | null;
  /** null when the outcome is unknown. */
  credits_charged: number | null;
  outcome: LedgerOutcome;
  /** The journal entry's id (sha256 of caller and Idempotency-Key). */
  key_hash: string;
  key_last4: string;
  /** What a verification or company search was for (an address, a file, a name); else null. */
  detail: ColumnType<string | null, string | null | undefined, string | null>;
}

/** What a purchase settled after its answer has: whose it is, and where its settlement stands. */
interface SettlementColumns {
  /** The journal entry's id: the ledger row's key_hash. */
  purchase_id: string;
  person: string;
  credits_estimated: number;
  state: SettlementState;
  started_at: Timestamp;
  claimed_at: Timestamp | null;
  /** The instance that claimed it (taken over at once once that instance has stopped). */
  claimed_by: ColumnType<string | null, string | null | undefined, string | null>;
  settled_at: Timestamp | null;
  /** Settlement attempts that failed; after the last allowed one the state is "given-up". */
  attempts: ColumnType<number, number | undefined, number>;
  /** Not tried again before this (backoff); null: at once. */
  next_attempt_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Why the latest attempt failed, in words. */
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A batch verification the proxy started and has not settled (its charge read from its results). */
export interface VerifyPurchaseTable extends SettlementColumns {
  generation: "v1" | "v2";
  process_id: string;
}

/** An export the proxy started and has not settled (charged or free, delivered rows recorded). */
export interface ExportPurchaseTable extends SettlementColumns {
  export_id: string;
  reveal: string;
  /** The columns sent (RBID_PAO among them), canonical: the owned rows' columns_key. */
  columns_key: string;
  /** `add-free`: the owned ids of the audience added to the file for nothing (null otherwise). */
  free_ids: ColumnType<string[] | null, string | null | undefined, string | null>;
}

export interface SuppressionListTable {
  id: string;
  name: string;
  created_by: string;
  created_at: Timestamp;
}

/** One do-not-contact entry, normalised (see suppression.ts). */
export interface SuppressionEntryTable {
  list_id: string;
  kind: "domain" | "companyId" | "personId" | "linkedin" | "email";
  value: string;
}

/** The team's monthly cap (one row, id 'team'); null: none. */
export interface TeamCapTable {
  id: "team";
  monthly_cap: number | null;
  updated_at: Timestamp;
  updated_by: string;
}

/** A person's monthly cap and approval threshold, in credits (null: none). */
export interface PersonCapTable {
  name: string;
  monthly_cap: number | null;
  approval_threshold: number | null;
  updated_at: Timestamp;
  updated_by: string;
}

export type ApprovalState = "waiting" | "approved" | "denied" | "ran";

/** A purchase above its buyer's threshold, stored whole so the proxy runs it once approved. */
export interface ApprovalTable {
  id: string;
  /** The journal entry's id for the requester and key: the purchase's id once it runs. */
  entry_id: string;
  requested_by: string;
  requested_at: Timestamp;
  operation: string;
  idempotency_key: string;
  /** The request's hash as forward.ts computes it: the same key with other details is refused. */
  fingerprint: string;
  /** The request's body as validated, JSON text. */
  body: string;
  /** Request headers that change what is bought (`x-owned-contacts`), lower-case names: JSON text. */
  headers: string;
  credits_estimated: number;
  summary: string;
  audience_name: string | null;
  state: ApprovalState;
  decided_by: string | null;
  decided_at: Timestamp | null;
  outcome: string | null;
  /** The request's query as validated, JSON text (null: none). */
  query: ColumnType<string | null, string | null | undefined, string | null>;
  /** An upload's name, type and bytes (base64), as sent (null: not an upload). */
  file_name: ColumnType<string | null, string | null | undefined, string | null>;
  file_type: ColumnType<string | null, string | null | undefined, string | null>;
  file: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A purchase admitted and under way: its estimate counts against the caps until its outcome is committed. */
export interface SpendHoldTable {
  entry_id: string;
  person: string;
  credits: number;
  at: Timestamp;
}

/**
 * A contact being bought right now (Enrich): a second purchase of the same person waits for the
 * first to commit, then takes the contact as the team's instead of paying for it again.
 */
export interface ContactReservationTable {
  /** RBID_PAO trimmed and lower-case, as the service matches it. */
  person_key: string;
  /** The journal entry (and ledger key_hash) of the purchase holding it. */
  purchase_id: string;
  at: Timestamp;
}

/** A started export's or batch's settlement: tried with backoff, given up (said) after its attempts. */
export type SettlementState = "pending" | "settling" | "settled" | "given-up";
