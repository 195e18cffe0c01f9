import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "../../src/server/db/database";
import { SpendJournal } from "../../src/server/spend/spend-journal";
import { hashPassword } from "../../src/server/team/passwords";
import { createDatabase, startPostgres } from "../support/postgres";
import { stopProcess } from "../support/processes";
import { KEY, post, startProxy, startSandboxProcess } from "./services";
import { fmt, median, p95, table, timed } from "./stats";

/**
 * Part of `npm run bench`: what the proxy's database costs.
 *  1. A count through a proxy whose person is signed in (sessions in the database, checked against
 *     memory between database checks) beside the same count through a proxy on loopback with no
 *     sign-in, interleaved with the same count sent straight to the sandbox (the baseline).
 *  2. The spend journal's cost on a spending call (the pending commit before the request leaves,
 *     the answer's commit after), against the same work without the journal, on the embedded
 *     database (on disk) and on a PostgreSQL server with durable commits (fsync on).
 */
const TARGET = { signedInApartMs: 0.2, journalMs: 5 };
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const COUNT = {
  filter: {
    type: "group",
    op: "AND",
    children: [{ type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP" }],
  },
};

export async function storeBench(options: { rows: number; runs: number }) {
  const runs = Math.max(500, options.runs);
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-store-"));
  const children: ChildProcess[] = [];
  const lines: string[] = [];
  const postgres = await startPostgres({ durable: true });
  try {
    const sandbox = await startSandboxProcess(dir, options.rows);
    children.push(sandbox.child);
    const usersFile = path.join(dir, "users");
    writeFileSync(usersFile, `ada:${await hashPassword("ada-bench-password")}\n`);
    const open = await startProxy(dir, "loopback", sandbox.url, { CACHE_TTL_MS: "0" });
    children.push(open.child);
    const signedIn = await startProxy(dir, "signed-in", sandbox.url, {
      CACHE_TTL_MS: "0",
      USERS_FILE: usersFile,
    });
    children.push(signedIn.child);
    const cookie = await signIn(signedIn.url);

    const direct = () => post(`${sandbox.url}/v2/contact/count`, COUNT, { "x-key": KEY });
    const viaOpen = () => post(`${open.url}/api/v2/contact/count`, COUNT, { "x-csrf": "1" });
    const viaSignedIn = () => post(`${signedIn.url}/api/v2/contact/count`, COUNT, { "x-csrf": "1", cookie });
    const calls = [direct, viaOpen, viaSignedIn];
    for (let i = 0; i < 30; i++) for (const call of calls) await call();
    const ms: number[][] = [[], [], []];
    for (let i = 0; i < runs; i++)
      for (let j = 0; j < 3; j++) {
        const k = (i + j) % 3; // each takes every place in turn
        ms[k]!.push((await timed(calls[k]!))[0]);
      }
    const [directMs, openMs, signedMs] = ms as [number[], number[], number[]];
    const overheadOpen = median(openMs.map((t, i) => t - directMs[i]!));
    const overheadSigned = median(signedMs.map((t, i) => t - directMs[i]!));
    const apart = median(signedMs.map((t, i) => t - openMs[i]!));

    const journal = [
      { label: "embedded (PGlite, on disk)", ...(await journalCost(await embedded(dir), runs)) },
      {
        label: "PostgreSQL server (fsync on)",
        ...(await journalCost(
          await openDatabase({ databaseUrl: await createDatabase(postgres.url), dataDir: dir }),
          runs,
        )),
      },
    ];

    lines.push(
      `The proxy's store: a count (cache off), ${runs} interleaved runs each (ms):`,
      "",
      table(
        ["route", "median", "p95", "overhead over direct (paired median)"],
        [
          ["straight to the sandbox (baseline)", fmt(median(directMs)), fmt(p95(directMs)), "-"],
          ["proxy, loopback, no sign-in", fmt(median(openMs)), fmt(p95(openMs)), fmt(overheadOpen)],
          [
            "proxy, signed in (sessions in the database)",
            fmt(median(signedMs)),
            fmt(p95(signedMs)),
            fmt(overheadSigned),
          ],
        ],
      ),
      "",
      `The spend journal on a spending call (pending commit + answer commit), ${runs} calls each (ms):`,
      "",
      table(
        [
          "database",
          "with journal median",
          "p95",
          "work alone median",
          "journal cost",
          "ratio to one `select 1`",
        ],
        journal.map((j) => [
          j.label,
          fmt(j.withMs),
          fmt(j.withP95),
          fmt(j.aloneMs),
          fmt(j.cost),
          j.ratio.toFixed(1),
        ]),
      ),
      "",
      table(
        ["target", "figure", "result"],
        [
          [
            `signed-in overhead within ${TARGET.signedInApartMs} ms of loopback's, at the median`,
            `${fmt(apart)} ms apart (paired median; overheads ${fmt(overheadSigned)} and ${fmt(overheadOpen)} ms)`,
            verdict(apart <= TARGET.signedInApartMs),
          ],
          ...journal.map((j) => [
            `journal cost <= ${TARGET.journalMs} ms at the median, ${j.label}`,
            `${fmt(j.cost)} ms`,
            verdict(j.cost <= TARGET.journalMs),
          ]),
        ],
      ),
      "",
      `This part took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    );
  } finally {
    for (const child of children.reverse())
      if (child.exitCode === null && child.signalCode === null) await stopProcess(child);
    postgres.remove();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join("\n");
}

async function signIn(url: string): Promise<string> {
  const response = await fetch(`${url}/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf": "1" },
    body: JSON.stringify({ name: "ada", password: "ada-bench-password" }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (!response.ok || !cookie) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return cookie;
}

async function embedded(dir: string): Promise<Database> {
  return openDatabase({ databaseUrl: null, dataDir: path.join(dir, "journal-embedded") });
}

/**
 * One journalled spend against the same work without a journal (an answer of the size of a
 * 25-row enrich, made at once), interleaved; a new key each call, as every purchase has.
 */
async function journalCost(database: Database, runs: number) {
  const journal = new SpendJournal(database, { ttlMs: 3600_000, joinWaitMs: 120_000 });
  await journal.start();
  const answer = { status: 200, headers: [] as [string, string][], body: "x".repeat(12_000) };
  const work = async () => ({ answer, outcome: "final" as const });
  const ping = async () => database.db.selectNoFrom((eb) => eb.lit(1).as("one")).execute();
  const withMs: number[] = [];
  const aloneMs: number[] = [];
  const pingMs: number[] = [];
  for (let i = 0; i < runs + 30; i++) {
    const scope = { caller: "bench", operation: "enrich", key: `bench-${i}-${Math.random()}` };
    const [w] = await timed(() => journal.run(scope, `fingerprint-${i}`, work));
    const [a] = await timed(work);
    const [p] = await timed(ping);
    if (i >= 30) {
      withMs.push(w);
      aloneMs.push(a);
      pingMs.push(p);
    }
  }
  await journal.close();
  await database.close();
  const cost = median(withMs.map((t, i) => t - aloneMs[i]!));
  return {
    withMs: median(withMs),
    withP95: p95(withMs),
    aloneMs: median(aloneMs),
    cost,
    ratio: cost / median(pingMs),
  };
}
