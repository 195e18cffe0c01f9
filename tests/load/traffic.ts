import autocannon from "autocannon";
import { get, post } from "../bench/services";
import { quantile } from "../bench/stats";

/**
 * The mixed traffic of the load and soak suites: what a team's sessions send through the proxy,
 * weighted like a session (counts on every edit, far fewer samples, exports and enrichments).
 * Filters come from a realistic set: a few popular audiences the team keeps returning to (cache
 * hits, as in real use) and many fresh combinations (each one new to the cache, so the sandbox
 * works for them). Spends carry a new Idempotency-Key each, as the app sends them.
 */
export const OPERATIONS = [
  "count",
  "view",
  "insights summary",
  "insights breakdown",
  "insights fields",
  "enrich",
  "export start",
  "export status",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Share of requests per operation, in percent: a session is mostly counts while the filter is edited. */
export const WEIGHTS: Record<Operation, number> = {
  count: 40,
  view: 12,
  "insights summary": 8,
  "insights breakdown": 8,
  "insights fields": 5,
  enrich: 7,
  "export start": 5,
  "export status": 15,
};

/** Share of filters taken from the team's popular audiences (repeated); the rest are fresh. */
const POPULAR_SHARE = 0.4;
const POPULAR_COUNT = 20;

type Json = Record<string, unknown>;
type Filter = Json;

/** Values the filters are made of, read from the dataset through the proxy before the run. */
export interface Ingredients {
  jobLevels: string[];
  jobFunctions: string[];
  countries: string[];
  industries: string[];
  employeeRanges: string[];
  /** Contact ids from a View, for Enrich (as the app enriches ticked rows of a sample). */
  personIds: string[];
  /** Exports started before the run, so status polls have ids from the first request on. */
  exportIds: string[];
}

/** A small seeded generator (mulberry32): the same seed gives the same traffic mix. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const some = <T>(items: readonly T[], min: number, max: number): T[] => {
    const pool = [...items];
    const out: T[] = [];
    for (let n = int(min, Math.min(max, pool.length)); n > 0; n--)
      out.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
    return out;
  };
  return { next, int, pick, some };
}
export type Random = ReturnType<typeof random>;

const API = "/api";
const CSRF = { "x-csrf": "1" };

/** Reads the ingredients through the proxy (the same way the app fills its pickers). */
export async function discover(proxyUrl: string): Promise<Ingredients> {
  const bucketsOf = async (groupField: string) => {
    const answer = (await post(
      `${proxyUrl}${API}/v2/contact/insights`,
      { section: "breakdown", filter: null, groupField },
      CSRF,
    )) as { buckets: { value: unknown }[] };
    return answer.buckets.map((b) => b.value).filter((v): v is string => typeof v === "string");
  };
  const ranges = (await get(
    `${proxyUrl}${API}/v2/contact/company/columns/EMPLOYEE_COUNT_RANGE_ORG/values`,
    CSRF,
  )) as { values: string[] };
  const sample = (await post(`${proxyUrl}${API}/v2/contact/view`, { filter: null, limit: 100 }, CSRF)) as {
    rows: { RBID_PAO?: unknown }[];
  };
  const personIds = sample.rows.map((r) => r.RBID_PAO).filter((v): v is string => typeof v === "string");
  const ingredients: Ingredients = {
    jobLevels: await bucketsOf("JOB_LEVEL_PER"),
    jobFunctions: await bucketsOf("JOB_FUNCTION_PER"),
    countries: await bucketsOf("COUNTRY_NAME_PER"),
    industries: await bucketsOf("INDUSTRY_LINKEDIN_ORG"),
    employeeRanges: ranges.values,
    personIds,
    exportIds: [],
  };
  for (const [name, values] of Object.entries(ingredients))
    if (name !== "exportIds" && (values as string[]).length < 3)
      throw new Error(`too few ${name} to build filters from: ${JSON.stringify(values)}`);
  for (let i = 0; i < 3; i++) {
    const started = (await post(
      `${proxyUrl}${API}/v2/contact/export`,
      { filter: null, maxRows: 20, reveal: "email", name: `load seed ${i}` },
      { ...CSRF, "idempotency-key": idempotencyKey() },
    )) as { exportId: string };
    ingredients.exportIds.push(started.exportId);
  }
  return ingredients;
}

let keys = 0;
const runId = Date.now().toString(36);
/** A key per spend, unique within and across runs (8 to 128 of [A-Za-z0-9_-]). */
export const idempotencyKey = () => `load-${runId}-${(++keys).toString(36)}`;

const TITLES = [
  "marketing director",
  "head of sales",
  "software engineer",
  "chief financial officer",
  "hr manager",
  "data scientist",
];
const MATCH = ["same", "similar", "related"] as const;

const condition = (column: string, operator: string, operands: Json) => ({
  type: "condition",
  column,
  operator,
  ...operands,
});
const group = (op: "AND" | "OR", children: Json[]): Filter => ({ type: "group", op, children });

/** A fresh audience: 1 to 4 conditions of the kinds the builder offers, sometimes an OR group. */
export function freshFilter(r: Random, x: Ingredients): Filter {
  const parts: (() => Json)[] = [
    () =>
      r.next() < 0.5
        ? condition("JOB_LEVEL_PER", "eq", { value: r.pick(x.jobLevels) })
        : condition("JOB_LEVEL_PER", "in", { valueList: r.some(x.jobLevels, 2, 3) }),
    () => condition("JOB_FUNCTION_PER", "eq", { value: r.pick(x.jobFunctions) }),
    () =>
      r.next() < 0.6
        ? condition("COUNTRY_NAME_PER", "eq", { value: r.pick(x.countries) })
        : group(
            "OR",
            r.some(x.countries, 2, 3).map((c) => condition("COUNTRY_NAME_PER", "eq", { value: c })),
          ),
    () => condition("INDUSTRY_LINKEDIN_ORG", "in", { valueList: r.some(x.industries, 1, 4) }),
    () => condition("EMPLOYEE_COUNT_RANGE_ORG", "eq", { value: r.pick(x.employeeRanges) }),
    () => condition("EMPLOYEE_COUNT_MIN", "gte", { value: r.int(1, 5000) }),
    () => {
      const from = r.int(1950, 2015);
      return condition("FOUNDED_ORG", "between", { value: from, value2: from + r.int(1, 10) });
    },
    () =>
      condition("JOB_TITLE_PER", "contains", { value: r.pick(["Manager", "Director", "Engineer", "VP"]) }),
    () => ({ type: "semantic", on: "title", text: r.pick(TITLES), match: r.pick(MATCH) }),
  ];
  return group(
    "AND",
    r.some(parts, 1, 4).map((make) => make()),
  );
}

/** The team's popular audiences: fixed for a run, asked again and again. */
export function popularFilters(r: Random, x: Ingredients): Filter[] {
  return Array.from({ length: POPULAR_COUNT }, () => freshFilter(r, x));
}

const INSIGHT_GROUPS = [
  "JOB_LEVEL_PER",
  "COUNTRY_NAME_PER",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
];
const INSIGHT_FIELDS = [
  "JOB_LEVEL_PER",
  "JOB_FUNCTION_PER",
  "COUNTRY_NAME_PER",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
];

interface Planned {
  op: Operation;
  method: "GET" | "POST";
  path: string;
  body?: Json;
  headers: Record<string, string>;
}

/** Draws the next request of the mix. */
export function planner(seed: number, x: Ingredients) {
  const r = random(seed);
  const popular = popularFilters(r, x);
  const cumulative: [Operation, number][] = [];
  let total = 0;
  for (const op of OPERATIONS) {
    total += WEIGHTS[op];
    cumulative.push([op, total]);
  }
  const filter = () => (r.next() < POPULAR_SHARE ? r.pick(popular) : freshFilter(r, x));
  const json = { ...CSRF, "content-type": "application/json" };
  const spend = () => ({ ...json, "idempotency-key": idempotencyKey() });

  return (): Planned => {
    const roll = r.next() * total;
    const op = cumulative.find(([, upTo]) => roll < upTo)![0];
    const at = (path: string) => `${API}${path}`;
    switch (op) {
      case "count":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/count"),
          body: { filter: filter() },
          headers: json,
        };
      case "view":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/view"),
          body: { filter: filter(), limit: r.pick([25, 50, 100]) },
          headers: json,
        };
      case "insights summary":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/insights"),
          body: { section: "summary", filter: filter() },
          headers: json,
        };
      case "insights breakdown":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/insights"),
          body: { section: "breakdown", filter: filter(), groupField: r.pick(INSIGHT_GROUPS) },
          headers: json,
        };
      case "insights fields":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/insights"),
          body: { section: "fields", filter: filter(), fields: r.some(INSIGHT_FIELDS, 2, 4) },
          headers: json,
        };
      case "enrich":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/enrich"),
          body: { personIds: r.some(x.personIds, 1, 5), reveal: r.pick(["none", "email", "both"]) },
          headers: spend(),
        };
      case "export start":
        return {
          op,
          method: "POST",
          path: at("/v2/contact/export"),
          body: { filter: filter(), maxRows: r.int(10, 100), reveal: "email", name: "load test" },
          headers: spend(),
        };
      case "export status":
        return {
          op,
          method: "GET",
          path: at(`/v2/contact/export/${encodeURIComponent(r.pick(x.exportIds))}`),
          headers: CSRF,
        };
    }
  };
}

/** A new export joins the ids status polls pick from (the most recent few hundred). */
export function noteExportStarted(ingredients: Ingredients, answerBody: string) {
  const { exportIds } = ingredients;
  const id = (JSON.parse(answerBody) as { exportId?: string }).exportId;
  if (id) exportIds.push(id);
  if (exportIds.length > 300) exportIds.splice(0, exportIds.length - 300);
}

/** Per-operation latencies and failures, fed by autocannon's per-response events. */
export class Recorder {
  readonly latencies = new Map<Operation, number[]>(OPERATIONS.map((op) => [op, []]));
  readonly failures = new Map<Operation, number>(OPERATIONS.map((op) => [op, 0]));
  /** The first few failed answers per operation (status and body), to find the cause. */
  readonly samples: string[] = [];
  readonly statuses = new Map<number, number>();

  record(op: Operation, status: number, ms: number) {
    this.latencies.get(op)!.push(ms);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status < 200 || status > 299) this.failures.set(op, this.failures.get(op)! + 1);
  }

  keepSample(op: Operation, status: number, body: string) {
    if (this.samples.length < 20) this.samples.push(`${op}: ${status} ${body.slice(0, 300)}`);
  }

  get total() {
    let n = 0;
    for (const list of this.latencies.values()) n += list.length;
    return n;
  }

  get failed() {
    let n = 0;
    for (const count of this.failures.values()) n += count;
    return n;
  }

  /** Rows of the per-operation table: requests, share, p50, p99, max (ms), non-2xx. */
  rows(): (string | number)[][] {
    const total = this.total;
    return OPERATIONS.map((op) => {
      const list = this.latencies.get(op)!;
      return [
        op,
        list.length,
        `${((100 * list.length) / Math.max(1, total)).toFixed(1)}%`,
        ms(quantile(list, 0.5)),
        ms(quantile(list, 0.99)),
        ms(list.length ? Math.max(...list) : Number.NaN),
        this.failures.get(op)!,
      ];
    });
  }
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "-");

export const TABLE_HEADERS = ["operation", "requests", "share", "p50 ms", "p99 ms", "max ms", "non-2xx"];

/** What one autocannon run gives: its result, and the per-operation record. */
export interface MixedRun {
  result: autocannon.Result;
  recorder: Recorder;
}

/**
 * Runs the mix with autocannon: one request definition whose `setupRequest` draws each request
 * (so every connection sends the whole mix) and notes its operation in the connection's context.
 * autocannon calls `onResponse` and then emits `response` with the latency, synchronously, before
 * the connection's next request is drawn: so the context still names the answered operation.
 */
export async function runMix(options: {
  url: string;
  connections: number;
  seconds: number;
  /** Requests per second over all connections (soak); unset: as fast as answers come (load). */
  overallRate?: number;
  /** autocannon's per-request timeout: long, so the proxy's own error answers show with their status. */
  timeoutSeconds: number;
  seed: number;
  ingredients: Ingredients;
  onResponse?: (op: Operation, status: number, ms: number) => void;
}): Promise<MixedRun> {
  const next = planner(options.seed, options.ingredients);
  const recorder = new Recorder();
  type Context = { op?: Operation };

  const mix: autocannon.Options = {
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: options.timeoutSeconds,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [
      {
        setupRequest: (request, context) => {
          const planned = next();
          (context as Context).op = planned.op;
          return {
            ...request,
            method: planned.method,
            path: planned.path,
            headers: planned.headers,
            body: planned.body === undefined ? undefined : JSON.stringify(planned.body),
          };
        },
        onResponse: (status, body, context) => {
          const op = (context as Context).op!;
          if (status < 200 || status > 299) recorder.keepSample(op, status, body);
          else if (op === "export start") noteExportStarted(options.ingredients, body);
        },
      },
    ],
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(mix, (error, done: autocannon.Result) =>
      error ? reject(error) : resolve(done),
    );
    instance.on("response", ((client: unknown, status: number, _bytes: number, ms: number) => {
      const op = (client as { requestIterator: { context: Context } }).requestIterator.context.op!;
      recorder.record(op, status, ms);
      options.onResponse?.(op, status, ms);
    }) as (...args: unknown[]) => void);
  });
  return { result, recorder };
}
