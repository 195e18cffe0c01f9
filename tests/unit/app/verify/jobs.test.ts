import { describe, expect, it } from "vitest";
import { resultsFilename, v1ResultsCsv } from "../../../../src/app/features/verify/download-results";
import {
  capHistory,
  createJobHistoryStore,
  JOB_HISTORY_KEY,
  type KnownJob,
  mergeJob,
} from "../../../../src/app/features/verify/job-history";
import {
  canCancel,
  canDownload,
  type Job,
  type JobStatus,
  progressOf,
  STATUS_WORDS,
} from "../../../../src/app/features/verify/job-model";

const job = (over: Partial<Job> = {}): Job => ({
  id: "12",
  filename: "list.csv",
  status: "PROCESSING",
  message: "Processing: 5 of 40 addresses verified",
  lastUpdated: "2026-03-01T10:00:00.000Z",
  generation: "v2",
  ...over,
});
const known = (over: Partial<KnownJob> = {}): KnownJob => ({ ...job(), addresses: 40, seenAt: "x", ...over });

/** A Storage in memory. */
function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => void map.set(k, v),
  };
}

describe("progressOf: progress from the status message", () => {
  it("reads the sandbox's messages", () => {
    expect(progressOf(job({ status: "QUEUED", message: "Queued: 40 addresses" }))).toEqual({
      done: 0,
      total: 40,
    });
    expect(progressOf(job())).toEqual({ done: 5, total: 40 });
    expect(progressOf(job({ status: "COMPLETED", message: "Completed: 1,200 addresses verified" }))).toEqual({
      done: 1200,
      total: 1200,
    });
    expect(progressOf(job({ status: "CANCELLED", message: "Cancelled after 12 of 200 addresses" }))).toEqual({
      done: 12,
      total: 200,
    });
  });

  it("anything else: no progress (no bar), never a wrong one", () => {
    expect(progressOf(job({ message: "Working" }))).toBeNull();
    expect(progressOf(job({ message: "50 of 40" }))).toBeNull();
    expect(progressOf(job({ message: "0 of 0" }))).toBeNull();
    expect(progressOf(job({ status: "PROCESSING", message: "40 addresses" }))).toBeNull();
  });
});

describe("statuses", () => {
  it("words for every status; cancel while queued or running; download once completed or cancelled", () => {
    const all: JobStatus[] = ["QUEUED", "PROCESSING", "COMPLETED", "ERROR", "CANCELLING", "CANCELLED"];
    expect(all.map((s) => STATUS_WORDS[s])).toEqual([
      "Waiting to start",
      "Verifying",
      "Completed",
      "Stopped with an error",
      "Cancelling",
      "Cancelled",
    ]);
    expect(all.filter(canCancel)).toEqual(["QUEUED", "PROCESSING"]);
    expect(all.filter(canDownload)).toEqual(["COMPLETED", "CANCELLED"]);
  });
});

describe("mergeJob", () => {
  it("a new job is added; an unchanged one is not rewritten", () => {
    expect(mergeJob(undefined, job(), "now")).toMatchObject({ id: "12", addresses: null, seenAt: "now" });
    expect(mergeJob(known(), job(), "now")).toBeNull();
  });

  it("moves forward, never back (a late answer cannot undo a newer status)", () => {
    expect(mergeJob(known(), job({ status: "COMPLETED", message: "Completed" }), "now")).toMatchObject({
      status: "COMPLETED",
      addresses: 40,
    });
    expect(mergeJob(known(), job({ status: "QUEUED" }), "now")).toBeNull();
    expect(mergeJob(known({ status: "CANCELLED" }), job({ status: "PROCESSING" }), "now")).toBeNull();
    expect(mergeJob(known({ status: "CANCELLED" }), job({ status: "COMPLETED" }), "now")).toBeNull();
    expect(mergeJob(known({ status: "CANCELLING" }), job({ status: "CANCELLED" }), "now")?.status).toBe(
      "CANCELLED",
    );
  });

  it("v2's status has no date: the time of the change stands for it", () => {
    const merged = mergeJob(
      known(),
      job({ message: "Processing: 9 of 40 addresses verified", lastUpdated: null }),
      "T",
    );
    expect(merged?.lastUpdated).toBe("T");
    expect(mergeJob(known(), job({ lastUpdated: null }), "T")).toBeNull();
  });
});

describe("the job history store", () => {
  it("adds newest first, updates, removes, and survives a reload (localStorage)", () => {
    const storage = memoryStorage();
    const store = createJobHistoryStore(storage);
    let calls = 0;
    const unsubscribe = store.subscribe(() => {
      calls += 1;
    });
    store.add(job({ id: "1" }), 10);
    store.add(job({ id: "2" }), 20);
    expect(store.getSnapshot().map((j) => j.id)).toEqual(["2", "1"]);
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);
    store.update([
      job({ id: "1", status: "COMPLETED", message: "Completed: 10 addresses verified" }),
      job({ id: "9" }),
    ]);
    expect(store.getSnapshot().map((j) => `${j.id}:${j.status}`)).toEqual([
      "9:PROCESSING",
      "2:PROCESSING",
      "1:COMPLETED",
    ]);
    expect(calls).toBe(3);
    store.update([job({ id: "2" })]);
    expect(calls).toBe(3);

    const reloaded = createJobHistoryStore(storage);
    expect(reloaded.getSnapshot()).toEqual(store.getSnapshot());
    reloaded.remove("9");
    expect(
      createJobHistoryStore(storage)
        .getSnapshot()
        .map((j) => j.id),
    ).toEqual(["2", "1"]);
    unsubscribe();
  });

  it("ignores what it cannot read, and works without storage", () => {
    const storage = memoryStorage();
    storage.setItem(JOB_HISTORY_KEY, "not json");
    expect(createJobHistoryStore(storage).getSnapshot()).toEqual([]);
    storage.setItem(JOB_HISTORY_KEY, JSON.stringify([{ id: 1 }, known()]));
    expect(createJobHistoryStore(storage).getSnapshot()).toHaveLength(1);
    const none = createJobHistoryStore(null);
    none.add(job(), 3);
    expect(none.getSnapshot()).toHaveLength(1);
  });

  it("keeps at most 20, dropping the oldest finished jobs first", () => {
    const jobs = Array.from({ length: 25 }, (_, i) =>
      known({ id: String(25 - i), status: i % 2 === 0 ? "COMPLETED" : "PROCESSING" }),
    );
    const kept = capHistory(jobs);
    expect(kept).toHaveLength(20);
    expect(kept.filter((j) => j.status === "PROCESSING")).toHaveLength(12);
    expect(kept[0]!.id).toBe("25");
  });
});

describe("results files", () => {
  it("the v1 download (JSON) becomes the v2 CSV, formulas neutralised", () => {
    expect(
      v1ResultsCsv([
        { email: "a@x.com", deliverability: "DELIVERABLE", role: false, risk: "LOW" },
        { email: "=cmd@x.com", deliverability: "UNKNOWN", role: true, risk: "HIGH" },
      ]),
    ).toBe(
      "email,status,deliverability,role,risk\r\na@x.com,Valid,DELIVERABLE,false,LOW\r\n'=cmd@x.com,Unknown,UNKNOWN,true,HIGH\r\n",
    );
  });

  it("names the file like the v2 download", () => {
    expect(resultsFilename("team list.csv")).toBe("team_list-results.csv");
    expect(resultsFilename(".csv")).toBe("results-results.csv");
  });
});
