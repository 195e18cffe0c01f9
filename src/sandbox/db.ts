import { type DuckDBConnection, DuckDBInstance, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";

export type SqlParam = string | number | boolean | null | bigint | DuckDBValue;

/** A query ready to run: SQL text with `$n` placeholders and its values (never spliced into the text). */
export interface Sql {
  text: string;
  params: SqlParam[];
  types?: (DuckDBType | undefined)[];
}

export type Row = Record<string, unknown>;

/**
 * The dataset, opened read-only: the generator wrote it in a child process, so this process keeps
 * only what queries need. A few connections let slow queries (an export) not block fast ones.
 */
export class Dataset {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((c: DuckDBConnection) => void)[] = [];

  private constructor(
    private readonly instance: DuckDBInstance,
    connections: DuckDBConnection[],
  ) {
    this.idle.push(...connections);
  }

  static async open(
    file: string,
    options: { threads?: number; memoryLimit?: string; connections?: number } = {},
  ) {
    const instance = await DuckDBInstance.create(file, {
      access_mode: "READ_ONLY",
      threads: String(options.threads ?? 2),
      memory_limit: options.memoryLimit ?? "512MB",
      // DuckDB's jemalloc returns freed pages to the OS only when an arena is busy or flushed; a
      // sandbox at rest, or one whose queries never reach the default 128 MB flush threshold,
      // otherwise keeps every page it ever used (the soak saw +80 MB after 5 minutes of traffic).
      allocator_background_threads: "true",
      allocator_flush_threshold: "8MB",
    });
    const connections = await Promise.all(
      Array.from({ length: options.connections ?? 3 }, () => instance.connect()),
    );
    return new Dataset(instance, connections);
  }

  private async acquire(): Promise<DuckDBConnection> {
    return this.idle.pop() ?? (await new Promise<DuckDBConnection>((r) => this.waiting.push(r)));
  }

  private release(connection: DuckDBConnection) {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  /** Runs `fn` with a connection of its own, queueing when all are busy. */
  async with<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await fn(connection);
    } finally {
      this.release(connection);
    }
  }

  /**
   * Streams a query's rows chunk by chunk (about 2,048 rows each) as arrays in column order, so a
   * large export never holds more than one chunk in memory.
   */
  async *stream(sql: Sql): AsyncGenerator<{ columns: string[]; rows: unknown[][] }> {
    const connection = await this.acquire();
    try {
      const result = await connection.stream(
        sql.text,
        sql.params as DuckDBValue[],
        sql.types as DuckDBType[],
      );
      const columns = result.columnNames();
      while (true) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        yield { columns, rows: chunk.getRows() };
      }
    } finally {
      this.release(connection);
    }
  }

  /** All rows of a query as plain objects (BIGINT as number, lists as arrays). */
  async rows(sql: Sql): Promise<Row[]> {
    return this.with((c) => readRows(c, sql));
  }

  /**
   * Runs queries that belong to one request on one connection, queueing for it once: under load a
   * second trip through the queue waits behind every request that arrived in between. `fn` must
   * not query the dataset by other means (that would wait for a connection while holding one).
   */
  async session<T>(fn: (rows: (sql: Sql) => Promise<Row[]>) => Promise<T>): Promise<T> {
    return this.with((c) => fn((sql) => readRows(c, sql)));
  }

  async one(sql: Sql): Promise<Row | undefined> {
    return (await this.rows(sql))[0];
  }

  /** DuckDB's own accounting of its memory, by tag (buffer pool, hash tables, ...), in bytes. */
  async memory(): Promise<Record<string, number>> {
    const rows = await this.rows({
      text: "SELECT tag, memory_usage_bytes AS b FROM duckdb_memory() WHERE memory_usage_bytes > 0",
      params: [],
    });
    return Object.fromEntries(rows.map((r) => [String(r.tag), Number(r.b)]));
  }

  close() {
    for (const c of this.idle) c.closeSync();
    this.idle.length = 0;
    this.instance.closeSync();
  }
}

async function readRows(c: DuckDBConnection, sql: Sql): Promise<Row[]> {
  const reader = await c.runAndReadAll(sql.text, sql.params as DuckDBValue[], sql.types as DuckDBType[]);
  return reader.getRowObjectsJS().map(plainRow);
}

/** DuckDB's JS form gives BIGINT as bigint; JSON has no such thing, and our values fit a double. */
export function plainRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = typeof v === "bigint" ? Number(v) : v;
  return out;
}

/** Builds SQL with numbered placeholders as values are added, so nothing is ever spliced. */
export class SqlBuilder {
  readonly params: SqlParam[] = [];
  readonly types: (DuckDBType | undefined)[] = [];

  /** Adds a value and returns its placeholder. */
  param(value: SqlParam, type?: DuckDBType): string {
    this.params.push(value);
    this.types.push(type);
    return `$${this.params.length}`;
  }

  /** A placeholder per value, comma-separated, for `IN (...)`. */
  list(values: readonly SqlParam[]): string {
    return values.map((v) => this.param(v)).join(", ");
  }

  build(text: string): Sql {
    return { text, params: this.params, types: this.types };
  }
}
