import { useSyncExternalStore } from "react";
import { z } from "zod";
import { browserStorage, cachedReader, storedRaw } from "../../lib/store";
import { isFinished, JOB_STATUSES, type Job, statusRank } from "./job-model";

/**
 * The batch jobs this browser knows about, newest first, in localStorage under
 * `ab.verifyJobs.v1`. The service lists only jobs still running (v2 `GET /jobs`, v1
 * `queued-process`), so a finished job would vanish from the screen without this memory; the last
 * status seen is kept too, so a reload shows finished jobs without asking again.
 */
export const JOB_HISTORY_KEY = "ab.verifyJobs.v1";

/** Enough for a working day; the oldest finished jobs go first. */
export const JOB_HISTORY_MAX = 20;

export interface KnownJob extends Job {
  /** Addresses in the job, when this browser started it. */
  addresses: number | null;
  /** When this browser first saw it (ISO 8601). */
  seenAt: string;
}

const knownJobSchema = z.object({
  id: z.string().min(1).max(64),
  filename: z.string(),
  status: z.enum(JOB_STATUSES),
  message: z.string(),
  lastUpdated: z.string().nullable(),
  generation: z.enum(["v1", "v2"]),
  addresses: z.number().int().nonnegative().nullable(),
  seenAt: z.string(),
});

function parse(raw: string | null): readonly KnownJob[] {
  if (raw === null) return [];
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value)) return [];
    return value.flatMap((entry) => {
      const parsed = knownJobSchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    });
  } catch {
    return [];
  }
}

/** Newest first; over the cap, finished jobs are dropped oldest first (running ones are kept). */
export function capHistory(jobs: readonly KnownJob[], max = JOB_HISTORY_MAX): KnownJob[] {
  const kept = [...jobs];
  for (let i = kept.length - 1; i >= 0 && kept.length > max; i -= 1)
    if (isFinished(kept[i]!.status)) kept.splice(i, 1);
  return kept;
}

/** What changed in `next` compared with `known`: the merged job, or null when nothing did. */
export function mergeJob(known: KnownJob | undefined, next: Job, now: string): KnownJob | null {
  if (!known) return { ...next, addresses: null, seenAt: now };
  // Statuses only move forward: a late answer from before the last one (a slow poll, a cached
  // status) must not undo it, and a final status is final.
  if (statusRank(next.status) < statusRank(known.status)) return null;
  if (isFinished(known.status) && next.status !== known.status) return null;
  const merged: KnownJob = {
    ...known,
    filename: next.filename || known.filename,
    status: next.status,
    message: next.message,
    generation: next.generation,
    // v2's status body has no date: the moment the screen saw the change stands for it.
    lastUpdated:
      next.lastUpdated ??
      (next.status !== known.status || next.message !== known.message ? now : known.lastUpdated),
  };
  const same =
    merged.status === known.status &&
    merged.message === known.message &&
    merged.filename === known.filename &&
    merged.lastUpdated === known.lastUpdated &&
    merged.generation === known.generation;
  return same ? null : merged;
}

export interface JobHistoryStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): readonly KnownJob[];
  /** Adds a job this browser just started, at the top. */
  add(job: Job, addresses: number | null): void;
  /** Records what the service said about jobs (adding the ones not known yet). */
  update(jobs: readonly Job[]): void;
  remove(id: string): void;
}

export function createJobHistoryStore(storage: Storage | null = browserStorage()): JobHistoryStore {
  const raw = storedRaw(JOB_HISTORY_KEY, () => storage);
  const parsed = cachedReader(parse);
  const read = (): readonly KnownJob[] => parsed(raw.get());
  // Full or refused storage: the store keeps the list in memory for this page.
  const write = (jobs: readonly KnownJob[]) => raw.set(JSON.stringify(capHistory(jobs)));

  return {
    subscribe: raw.subscribe,
    getSnapshot: read,
    add(job, addresses) {
      const now = new Date().toISOString();
      const rest = read().filter((j) => j.id !== job.id);
      write([{ ...job, addresses, seenAt: now }, ...rest]);
    },
    update(jobs) {
      const now = new Date().toISOString();
      const current = read();
      let next: KnownJob[] | null = null;
      for (const job of jobs) {
        const list: KnownJob[] = next ?? [...current];
        const index = list.findIndex((j) => j.id === job.id);
        const merged = mergeJob(index === -1 ? undefined : list[index], job, now);
        if (!merged) continue;
        if (index === -1) list.unshift(merged);
        else list[index] = merged;
        next = list;
      }
      if (next) write(next);
    },
    remove(id) {
      const current = read();
      if (current.some((j) => j.id === id)) write(current.filter((j) => j.id !== id));
    },
  };
}

const NO_JOBS: readonly KnownJob[] = [];

/** The app's store (one per page load). */
export const jobHistory = createJobHistoryStore();

export function useJobHistory(store: JobHistoryStore = jobHistory): readonly KnownJob[] {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, () => NO_JOBS);
}
