import { useQueryClient } from "@tanstack/react-query";
import { preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import { usePurchase } from "../../lib/spend";
import { ACTIVE_JOBS_QUERY_KEY } from "./active-jobs";
import { addressesCsv } from "./address-list";
import type { Job } from "./job-model";

/**
 * Starts a batch job. v2 has one way in, the upload (`POST /api/v2/email/verify/batch`, multipart,
 * file field `requested_file`, .csv or .json), so a pasted list (or a .txt file) goes up as a
 * one-column CSV made here. Where v2 is absent: a file goes to the documented `POST
 * /api/v1/batch-upload`, a list to `POST /api/v1/batch-process-email { emails }`. Spends credits
 * as the job runs, so the call carries an Idempotency-Key: a retry never starts a second job.
 */
export type BatchSource =
  /** A .csv or .json file, sent as it is (its text, so that the spend journal can keep it). */
  | { kind: "file"; name: string; type: string; text: string }
  /** Addresses from a paste or a .txt file, and the name the job gets. */
  | { kind: "list"; addresses: readonly string[]; filename: string };

export interface StartedJob extends Job {
  /** Addresses the job checks (for the screen; the service does not say). */
  addresses: number;
}

function uploadForm(file: File): FormData {
  const form = new FormData();
  form.append("requested_file", file, file.name);
  return form;
}

function sourceFile(source: BatchSource): File {
  if (source.kind === "file") return new File([source.text], source.name, { type: source.type });
  const name = source.filename.replace(/\.[^.]*$/, "") || "addresses";
  return new File([addressesCsv(source.addresses)], `${name}.csv`, { type: "text/csv" });
}

export async function startBatch(
  source: BatchSource,
  addresses: number,
  idempotencyKey: string,
): Promise<StartedJob> {
  const file = sourceFile(source);
  const now = new Date().toISOString();
  const { value } = await preferV2<StartedJob>("batch", {
    v2: async () => {
      const started = await call("batchV2", { form: uploadForm(file), idempotencyKey });
      return {
        id: String(started.process_id),
        filename: started.filename,
        status: started.status,
        message: `Queued: ${addresses} addresses`,
        lastUpdated: now,
        generation: "v2",
        addresses,
      };
    },
    v1: async () => {
      if (source.kind === "list") {
        const started = await call("batchV1", { body: { emails: [...source.addresses] }, idempotencyKey });
        const named = (started as { filename?: unknown }).filename;
        return {
          id: started.process_id,
          filename: typeof named === "string" ? named : file.name,
          status: started.status,
          message: `Queued: ${addresses} addresses`,
          lastUpdated: now,
          generation: "v1",
          addresses,
        };
      }
      const started = await call("batchUploadV1", { form: uploadForm(file), idempotencyKey });
      return {
        id: started.process_id,
        filename: started.filename,
        status: started.status,
        message: `Queued: ${addresses} addresses`,
        lastUpdated: now,
        generation: "v1",
        addresses,
      };
    },
  });
  return value;
}

/** Starting a job as a journalled spend (lib/spend.ts); `onStarted` runs once the job is known. */
export function useStartBatchSpend(onStarted: (job: StartedJob) => void) {
  const queryClient = useQueryClient();
  return usePurchase<StartedJob>({
    kind: "verifyBatch",
    send: (body, key) => {
      const { source, addresses } = body as BatchSpend;
      return startBatch(source, addresses, key);
    },
    onSettled: ([job]) => {
      void queryClient.invalidateQueries({ queryKey: ACTIVE_JOBS_QUERY_KEY });
      if (job) onStarted(job);
    },
  });
}

/** What the journal keeps of a batch: the list or file, and how many addresses it holds. */
export interface BatchSpend {
  source: BatchSource;
  addresses: number;
}
