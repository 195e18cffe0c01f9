import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { TEST_V8_FLAGS } from "./tests/support/v8-flags.mjs";

// One config for the SPA build and for Vitest. The app lives in src/app; the server and sandbox
// are Node code run by tsx and never bundled for the browser.
// The app writes numbers and dates in the browser's locale (src/app/lib/format.ts); the test
// processes, forked from this one, read theirs from the environment at start: pin it.
if (process.env.VITEST) process.env.LC_ALL = "en_US.UTF-8";

/**
 * The proxy's integration files whose behaviour depends on the database, run a second time on a
 * real PostgreSQL server (the `postgres` project). The other server files go through the same
 * Kysely queries on PGlite, which *is* PostgreSQL; what differs on a server is several
 * connections (locks, transactions, concurrency), several instances, and the migrations.
 */
const ON_POSTGRES = [
  "instances", // several proxy instances on one database: sessions, one Idempotency-Key carried out once
  "team-migration", // the migrations step by step, on the server's DDL
  "money-migrations", // one ledger row per purchase (doubled rows kept under keys of their own); caps go with their person
  "idempotency", // the spend journal: the same key at once, claims, a gone instance's pending entry
  "caps-approvals", // two spends at once against one cap: the hold is taken in a transaction
  "checkout-spending", // purchases racing for the same rows and the journal's commit
  "owned-ledger", // owned contacts and the ledger written in one transaction with the journal
  "journal-edges", // two journals, one judged gone: the send's clock, one ledger row after a gap
  "money-edges", // contacts reserved across instances; the ledger checked in the journal's insert
  "exports-in-flight", // an export sharing contacts with one not settled (or started a moment before) is refused
  "team-audiences", // versions saved at once (optimistic concurrency); text a server cannot store
  "team-people", // sessions and roles across instances; the last admin kept under concurrent changes
  "roles", // a role changed by another instance, read from the database on every spend
  "tool-spends", // settlement claimed by one instance, taken over from a stopped one
  "users-cli", // the CLI on DATABASE_URL beside a running proxy (no embedded lock)
  "backup", // pg_dump and pg_restore; a restore refused while an instance is alive on the server
].map((name) => `tests/integration/server/${name}.test.ts`);

/**
 * Node flags of the forked workers: see TEST_V8_FLAGS; and a larger young generation, since a test
 * worker's short life allocates fast (fewer scavenges). Four browser files took 155 CPU-s without
 * them, 134 with them. Not for the timed browser tests, which measure the app as it runs.
 */
const FORK_EXEC_ARGV = [...TEST_V8_FLAGS, "--max-semi-space-size=32"];

/**
 * The app's unit files that replace modules (vi.mock), which only a fresh module graph undoes:
 * found by reading them, so that a new one cannot land among the files that share their graph.
 */
const APP_UNIT_DIR = fileURLToPath(new URL("./tests/unit/app/", import.meta.url));
const MOCKING_APP_TESTS = readdirSync(APP_UNIT_DIR, { recursive: true, encoding: "utf8" })
  .filter((name) => /\.test\.tsx?$/.test(name))
  .filter((name) => /\bvi\.(do)?mock\(/.test(readFileSync(APP_UNIT_DIR + name, "utf8")))
  .map((name) => `tests/unit/app/${name}`);

/** The app's unit files: how long they wait on the page (tests/support/app-unit-setup.ts). */
const APP_UNIT_SETUP = "tests/support/app-unit-setup.ts";

/** Browser tests that assert how fast the app answers (see the `e2e-timed` project). */
const TIMED_E2E = ["tests/e2e/recovery.test.ts"];

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist/app", emptyOutDir: true, sourcemap: true },
  test: {
    environment: "node",
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits on an event (a heading drawn, a row settled): its 1 s default turns a busy
    // machine into a red test, so it waits as long as a test may.
    expect: { poll: { timeout: 30_000 } },
    pool: "forks",
    // Most files wait on a browser, a server or a child process rather than on a core: on two
    // cores, three at a time keeps both busy (`npm test` sets it; VITEST_MAX_WORKERS overrides).
    // Four were tried: the run took a fifth longer (both cores were already busy all the way).
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    projects: [
      // The app's components and hooks (jsdom): threads sharing their module graph, as below.
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/app/**/*.test.{ts,tsx}"],
          exclude: MOCKING_APP_TESTS,
          setupFiles: [APP_UNIT_SETUP],
          pool: "threads",
          isolate: false,
        },
      },
      // The app's files that replace modules (vi.mock): each file in a module graph of its own.
      {
        extends: true,
        test: {
          name: "unit-mocking",
          include: MOCKING_APP_TESTS,
          pool: "threads",
          setupFiles: [APP_UNIT_SETUP],
        },
      },
      // Pure functions of the contract, sandbox and server: threads sharing one module graph (no
      // mocks, no module state that outlives a test), so each module is loaded once per thread.
      {
        extends: true,
        test: {
          name: "unit-pure",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          exclude: ["tests/unit/app/**"],
          pool: "threads",
          isolate: false,
        },
      },
      // Real HTTP, the proxy's store embedded (PGlite), as `npm start` runs it; the crash suite.
      {
        extends: true,
        test: {
          name: "integration",
          execArgv: FORK_EXEC_ARGV,
          // As the browser files: each file starts its own proxies and sandboxes; a new process per
          // file paid its imports and PGlite's compile again (the whole project: 663 CPU-s, 343 s
          // isolated; 508 CPU-s, 271 s shared, every file passing).
          isolate: false,
          include: ["tests/integration/**/*.test.ts", "tests/load/**/*.test.ts"],
          globalSetup: ["tests/support/global-setup.ts", "tests/support/product-setup.ts"],
        },
      },
      // Chromium driving the built app: one browser for the run, a context per test.
      {
        extends: true,
        test: {
          name: "e2e",
          execArgv: FORK_EXEC_ARGV,
          // Files share their worker's process: each builds its own apps, pages and databases
          // already, and a new process per file cost its imports and PGlite's compile again (six
          // browser files: 166 CPU-s isolated, 151 shared; all 27 pass either way).
          isolate: false,
          include: ["tests/e2e/**/*.test.ts"],
          exclude: TIMED_E2E,
          // After the other projects: three browser files at a time keep two cores busy on their own.
          sequence: { groupOrder: 1 },
          // Each test waits on the page (actions, polls); the limit only catches one that hangs.
          testTimeout: 120_000,
          globalSetup: ["tests/support/global-setup.ts", "tests/support/e2e-setup.ts"],
        },
      },
      // Browser tests that hold the app to a time (every screen back within 2 s of the server): run
      // once everything else is done, alone, so that they measure the app rather than the machine.
      {
        extends: true,
        test: {
          name: "e2e-timed",
          include: TIMED_E2E,
          testTimeout: 120_000,
          sequence: { groupOrder: 2 },
          globalSetup: ["tests/support/global-setup.ts", "tests/support/e2e-setup.ts"],
        },
      },
      // The fuzz run (its own process, nice 19) beside the timed browser file, which leaves a core idle.
      {
        extends: true,
        test: { name: "fuzz", include: ["tests/fuzz/**/*.test.ts"], sequence: { groupOrder: 2 } },
      },
      // The files of ON_POSTGRES again on Debian's PostgreSQL server, started for the run.
      {
        extends: true,
        test: {
          name: "postgres",
          execArgv: FORK_EXEC_ARGV,
          isolate: false,
          include: ON_POSTGRES,
          globalSetup: [
            "tests/support/global-setup.ts",
            "tests/support/postgres-setup.ts",
            "tests/support/product-setup.ts",
          ],
        },
      },
    ],
  },
});
