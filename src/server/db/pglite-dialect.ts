import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from "kysely";

export interface QueryAnswer<R = unknown> {
  rows: R[];
  affectedRows?: number;
}

/**
 * What the dialect needs of PGlite: an instance in this thread (tests' in-memory databases), or
 * the proxy's, run in a worker (embedded-database.ts), whose `pinned` keeps a transaction on one
 * instance.
 */
export interface EmbeddedQueries {
  query<R>(sql: string, params?: unknown[]): Promise<QueryAnswer<R>>;
  close(): Promise<void>;
  readonly closed: boolean;
  pinned?(): EmbeddedQueries;
}

/**
 * Kysely over PGlite: PostgreSQL's adapter, compiler and introspector (it is PostgreSQL), and a
 * driver for its one connection. The published `kysely-pglite` package brings a code-generation CLI
 * with it; this is all of the runtime part we need.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: EmbeddedQueries) {}
  createAdapter = () => new PostgresAdapter();
  createDriver = () => new PGliteDriver(this.pglite);
  createQueryCompiler = () => new PostgresQueryCompiler();
  createIntrospector = (db: Parameters<Dialect["createIntrospector"]>[0]) => new PostgresIntrospector(db);
}

/** One connection, lent to one user at a time: a transaction must not interleave with other queries. */
class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | null = null;

  constructor(private readonly pglite: EmbeddedQueries) {}

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.release = release;
    return new PGliteConnection(this.pglite.pinned?.() ?? this.pglite);
  }

  async releaseConnection() {
    const release = this.release;
    this.release = null;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }

  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    try {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    } catch (error) {
      // The instance broke during the transaction (its queries now fail): nothing of it was
      // committed, and the error that broke it, which says why (disk full, I/O), is the one the
      // caller must hear, not this one, which Kysely would throw in its place.
      if ((error as Error)?.name !== "EmbeddedDatabaseDown") throw error;
    }
  }

  async destroy() {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: EmbeddedQueries) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiled.sql, [...compiled.parameters]);
    return {
      rows: result.rows,
      ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; Kysely requires the method.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("PGlite does not stream query results");
  }
}
