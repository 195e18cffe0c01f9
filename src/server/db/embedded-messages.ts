/** What the proxy and its embedded database's worker say to each other (embedded-database.ts). */

export type ToWorker =
  | { type: "query"; id: number; sql: string; params: unknown[] }
  /** A copy of the database folder (a gzipped tar), taken between two queries. */
  | { type: "dump"; id: number }
  | { type: "close" };

export type FromWorker =
  | { type: "ready" }
  | { type: "failed"; error: ErrorRecord }
  | { type: "result"; id: number; rows: unknown[]; affectedRows?: number }
  | { type: "dumped"; id: number; bytes: ArrayBuffer }
  | { type: "error"; id: number; error: ErrorRecord }
  | { type: "closed" };

/** An error's name, message and its primitive fields (PostgreSQL's code, severity, detail; errno). */
export type ErrorRecord = Record<string, string | number | boolean | undefined>;

export function describeError(error: unknown): ErrorRecord {
  if (typeof error !== "object" || error === null) return { name: "Error", message: String(error) };
  const record: ErrorRecord = { name: (error as Error).name, message: (error as Error).message };
  for (const [key, value] of Object.entries(error))
    if (["string", "number", "boolean"].includes(typeof value))
      record[key] = value as string | number | boolean;
  return record;
}

/** The error again, as the code that reads it expects it (its name, code and errno kept). */
export function errorFrom(record: ErrorRecord): Error {
  const error = new Error(String(record.message ?? "the embedded database failed"));
  Object.assign(error, record);
  return error;
}
