import path from "node:path";
import { Hono } from "hono";
import type { SandboxOptions } from "./config";
import { ensureDataset } from "./dataset/index";
import { Dataset, SqlBuilder } from "./db";
import { HttpError, registerOperations } from "./http/pipeline";
import { RateLimiter } from "./http/rate-limit";
import { ExportJobs } from "./jobs/exports";
import { VerifyJobs } from "./jobs/verify-jobs";
import { Audience } from "./query/audience";
import { SemanticIndex } from "./query/semantic";
import { accountHandlers } from "./routes/account";
import { companyHandlers } from "./routes/companies";
import { contactHandlers } from "./routes/contacts";
import { exportHandlers } from "./routes/exports";
import { organizationHandlers } from "./routes/organizations";
import { verifyHandlers } from "./routes/verify";
import { DamagedFileError, reason, refuseDamaged, SandboxStartError, usableFolder } from "./state/damage";
import { StateSaveError, StateStore } from "./state/store";
import type { AddressBook } from "./verify/verify-email";
import { viewRowsLeft } from "./view-budget";

export interface Sandbox {
  app: Hono;
  fetch: (request: Request) => Promise<Response>;
  close: () => Promise<void>;
  options: SandboxOptions;
  /** DuckDB's accounting of its memory by tag, for the memory probe (`npm run probe`). */
  databaseMemory: () => Promise<Record<string, number>>;
}

/**
 * The sandbox: the whole service over a read-only DuckDB dataset, with its mutable state (credits,
 * budgets, keys, jobs, exports) under `dataDir`. Generates the dataset on first start. Refuses to
 * start (SandboxStartError, one line) when the data folder cannot be used or a file it keeps is
 * damaged, rather than starting on less than it kept.
 */
export async function createSandbox(
  options: SandboxOptions,
  log: (error: unknown) => void = (e) => console.error(e),
): Promise<Sandbox> {
  const stateDir = path.join(options.dataDir, "state");
  usableFolder(options.dataDir, "data folder");
  for (const dir of [stateDir, path.join(stateDir, "exports"), path.join(stateDir, "jobs")])
    usableFolder(dir, "state folder");
  // Before the dataset, which may take minutes to generate: a damaged state file refuses at once.
  const store = StateStore.open(stateDir, log);
  const { db, audience, semantic } = await openDataset(options);
  const exports = new ExportJobs(audience, store, path.join(stateDir, "exports"), log);
  const book = await addressBook(db);
  const jobs = new VerifyJobs(store, book, path.join(stateDir, "jobs"), options.verifyRate, log);
  try {
    await exports.resume();
    await jobs.resume();
  } catch (error) {
    // Nothing is left open by a refused start (tests start many sandboxes in one process).
    await exports.close().catch(() => {});
    await jobs.close().catch(() => {});
    db.close();
    throw error;
  }

  const app = new Hono();
  registerOperations(
    app,
    {
      store,
      limiter: new RateLimiter(options.ratePerMinute, options.ratePerDay),
      v1Retired: options.v1Retired,
      log,
      // src/sandbox/README.md: X-FreePreview-Remaining is on every View answer, errors included.
      headersFor: (op, caller): Record<string, string> =>
        op.id === "view"
          ? { "X-FreePreview-Remaining": String(viewRowsLeft(caller.key, options.viewBudget)) }
          : {},
    },
    {
      ...contactHandlers({ audience, store, viewBudget: options.viewBudget }),
      ...exportHandlers({ exports }),
      ...companyHandlers({ audience, semantic }),
      ...accountHandlers({ store }),
      ...verifyHandlers({ jobs, book, store }),
      ...organizationHandlers({ db, store }),
    },
  );
  // FastAPI's answers for what is not an operation.
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  // The one error mapper: a refusal thrown below a handler, else a 500 that names nothing inside.
  app.onError((error, c) => {
    if (error instanceof HttpError) return c.json(error.body, error.status);
    // Logged by the store already; the caller learns the change was not kept (nothing charged).
    if (error instanceof StateSaveError)
      return c.json(
        {
          detail: `The sandbox could not save its state (${reason(error.cause)}), so this request was not completed and nothing was charged for it. Try again once its data folder can be written.`,
        },
        500,
      );
    log(error);
    return c.json({ detail: "The sandbox could not complete this request." }, 500);
  });

  return {
    app,
    options,
    fetch: (request) => Promise.resolve(app.fetch(request)),
    databaseMemory: () => db.memory(),
    async close() {
      await exports.close();
      await jobs.close();
      await store.close();
      db.close();
    },
  };
}

/**
 * Opens the dataset; a generated file DuckDB cannot read (truncated, garbage, empty) is moved aside
 * and the start refused, so the next start generates it again instead of failing on it forever.
 */
async function openDataset(options: SandboxOptions) {
  const generated = options.datasetFile === undefined;
  let file = options.datasetFile;
  if (file === undefined) {
    const dir = path.join(options.dataDir, "dataset");
    usableFolder(dir, "dataset folder");
    file = await ensureDataset(dir, { rows: options.rows, seed: options.seed }, options.onProgress);
  }
  let db: Dataset;
  try {
    // DuckDB checks the file's header and size as it opens it (queries check block checksums).
    db = await Dataset.open(file);
  } catch (error) {
    const damage = new DamagedFileError(file, `DuckDB cannot read it: ${reason(error)}`);
    if (!generated) throw new SandboxStartError(`the dataset file ${damage.message}`);
    throw refuseDamaged(damage, "the next start generates the dataset again", true);
  }
  const semantic = new SemanticIndex(db);
  return { db, semantic, audience: await Audience.load(db, semantic) };
}

/** The dataset as the verifier sees it: which addresses exist, which domains are its companies'. */
async function addressBook(db: Dataset): Promise<AddressBook> {
  const domains = new Set(
    (await db.rows({ text: "SELECT DOMAIN_ORG AS d FROM companies", params: [] })).map((r) => String(r.d)),
  );
  return {
    isDatasetDomain: (domain) => domains.has(domain),
    async isKnownAddress(email) {
      const sql = new SqlBuilder();
      const row = await db.one(
        sql.build(`SELECT 1 AS hit FROM contacts WHERE EMAIL_ADDRESS_PER = ${sql.param(email)} LIMIT 1`),
      );
      return row !== undefined;
    },
  };
}
