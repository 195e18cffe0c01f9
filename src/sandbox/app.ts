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
import { StateStore } from "./state/store";
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
 * budgets, keys, jobs, exports) under `dataDir`. Generates the dataset on first start.
 */
export async function createSandbox(
  options: SandboxOptions,
  log: (error: unknown) => void = (e) => console.error(e),
): Promise<Sandbox> {
  const datasetFile =
    options.datasetFile ??
    (await ensureDataset(path.join(options.dataDir, "dataset"), { rows: options.rows, seed: options.seed }));
  const db = await Dataset.open(datasetFile);
  const semantic = new SemanticIndex(db);
  const audience = await Audience.load(db, semantic);
  const store = StateStore.open(path.join(options.dataDir, "state"));
  const book = await addressBook(db);

  const exports = new ExportJobs(audience, store, path.join(options.dataDir, "state", "exports"));
  const jobs = new VerifyJobs(store, book, path.join(options.dataDir, "state", "jobs"), options.verifyRate);
  await exports.resume();
  await jobs.resume();

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
