import type { Generation } from "../../api/generations";

/**
 * A batch verification job as the screen knows it, whichever generation reported it, and what
 * its status and message mean in words. Pure.
 */
export const JOB_STATUSES = [
  "QUEUED",
  "PROCESSING",
  "COMPLETED",
  "ERROR",
  "CANCELLING",
  "CANCELLED",
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface Job {
  /** The process id as text: v2 sends an integer, v1 its decimal string (the same job). */
  id: string;
  filename: string;
  status: JobStatus;
  message: string;
  /** ISO 8601, when the service said; null when it did not (v2's status body has no date). */
  lastUpdated: string | null;
  /** The generation that reported it last. */
  generation: Generation;
}

/** Statuses that will not change again. */
export function isFinished(status: JobStatus): boolean {
  return status === "COMPLETED" || status === "CANCELLED" || status === "ERROR";
}

/** The service is still working on it (CANCELLING included: it ends in CANCELLED). */
export function isActive(status: JobStatus): boolean {
  return !isFinished(status);
}

/** Order of the statuses: a job only ever moves to a higher rank. */
export function statusRank(status: JobStatus): number {
  if (status === "QUEUED") return 0;
  if (status === "PROCESSING") return 1;
  if (status === "CANCELLING") return 2;
  return 3;
}

export function canCancel(status: JobStatus): boolean {
  return status === "QUEUED" || status === "PROCESSING";
}

/** Results can be downloaded once completed, and so far once cancelled (public docs). */
export function canDownload(status: JobStatus): boolean {
  return status === "COMPLETED" || status === "CANCELLED";
}

export const STATUS_WORDS: Record<JobStatus, string> = {
  QUEUED: "Waiting to start",
  PROCESSING: "Verifying",
  COMPLETED: "Completed",
  ERROR: "Stopped with an error",
  CANCELLING: "Cancelling",
  CANCELLED: "Cancelled",
};

export type StatusTone = "neutral" | "busy" | "good" | "bad";

export const STATUS_TONE: Record<JobStatus, StatusTone> = {
  QUEUED: "neutral",
  PROCESSING: "busy",
  COMPLETED: "good",
  ERROR: "bad",
  CANCELLING: "neutral",
  CANCELLED: "neutral",
};

export interface Progress {
  done: number;
  total: number;
}

const toNumber = (text: string) => Number(text.replace(/[,\s]/g, ""));

/**
 * Progress as the status message carries it, when it does. The sandbox writes "Queued: 40
 * addresses", "Processing: 25 of 40 addresses verified", "Completed: 40 addresses verified",
 * "Cancelled after 12 of 200 addresses"; the live service's wording is not published, so anything
 * else simply shows no bar.
 */
export function progressOf(job: Pick<Job, "status" | "message">): Progress | null {
  const of = /(\d[\d,]*)\s+of\s+(\d[\d,]*)/i.exec(job.message);
  if (of) {
    const done = toNumber(of[1]!);
    const total = toNumber(of[2]!);
    if (Number.isFinite(done) && Number.isFinite(total) && total > 0 && done <= total) return { done, total };
    return null;
  }
  const count = /(\d[\d,]*)\s+(?:addresses|emails|address|email)/i.exec(job.message);
  if (!count) return null;
  const total = toNumber(count[1]!);
  if (!Number.isFinite(total) || total <= 0) return null;
  if (job.status === "QUEUED") return { done: 0, total };
  if (job.status === "COMPLETED") return { done: total, total };
  return null;
}

/** The id of a job as people see it: `#12`. */
export function jobLabel(id: string): string {
  return /^\d+$/.test(id) ? `#${id}` : id;
}
