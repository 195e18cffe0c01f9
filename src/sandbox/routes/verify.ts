import { validationError } from "../../contract/errors";
import { PRICE } from "../../contract/inferred";
import { parseEmailUpload } from "../../contract/verify-upload";
import { charge } from "../billing";
import { type Caller, HttpError, type SomeHandlers, unprocessable } from "../http/pipeline";
import type { VerifyJobs } from "../jobs/verify-jobs";
import type { VerifyJobRecord } from "../state/store";
import { toResultsCsv } from "../verify/results-csv";
import {
  type AddressBook,
  isDefinite,
  toV1Result,
  toV2Status,
  type VerifyOutcome,
  v2Metadata,
  verifyEmail,
} from "../verify/verify-email";

/** Email verification, v1 as documented and v2 as the public docs do: the same jobs underneath. */
type VerifyOperation =
  | "verifyV1"
  | "batchV1"
  | "batchStatusV1Get"
  | "batchStatusV1Post"
  | "batchDownloadV1"
  | "batchUploadV1"
  | "queuedV1"
  | "cancelV1"
  | "verifyV2"
  | "batchV2"
  | "jobsV2"
  | "jobStatusV2"
  | "jobCancelV2"
  | "jobDownloadV2";

export function verifyHandlers(deps: {
  jobs: VerifyJobs;
  book: AddressBook;
  store: Parameters<typeof charge>[0];
}) {
  const { jobs, book, store } = deps;

  /** Verifies one address; a definite answer costs a credit, and with none left it is a 402. */
  const verifyOne = async (caller: Caller, email: string): Promise<VerifyOutcome> => {
    const outcome = await verifyEmail(email, book);
    if (isDefinite(outcome.deliverability))
      await charge(store, caller.account, PRICE.perDefiniteVerification);
    return outcome;
  };

  const upload = async (caller: Caller, file: File | undefined, metadata: boolean) => {
    if (!file)
      throw unprocessable(
        validationError(["body", "requested_file"], "Field required", undefined, "missing"),
      );
    const parsed = parseEmailUpload(file.name, new Uint8Array(await file.arrayBuffer()));
    if ("error" in parsed) {
      if (parsed.error.status === 400) throw new HttpError(400, { detail: parsed.error.detail });
      throw unprocessable(validationError(["body", "requested_file"], parsed.error.detail));
    }
    return jobs.create(caller.account, parsed.emails, file.name, metadata);
  };

  const statusV1 = (job: VerifyJobRecord) => ({
    process_id: String(job.processId),
    filename: job.filename,
    status: job.status,
    current_status: job.status,
    message: job.message,
  });
  const processV2 = (job: VerifyJobRecord) => ({
    process_id: job.processId,
    filename: job.filename,
    status: job.status,
    message: job.message,
    last_updated: job.lastUpdated,
  });
  const statusV2 = (job: VerifyJobRecord) => ({
    process_id: job.processId,
    filename: job.filename,
    current_status: job.status,
    message: job.message,
  });

  const handlers: SomeHandlers<VerifyOperation> = {
    async verifyV1({ c, body, caller }) {
      return c.json(toV1Result(await verifyOne(caller, body.email)));
    },
    async batchV1({ c, body, caller }) {
      const job = await jobs.create(caller.account, body.emails, `batch-${Date.now()}.json`, false);
      return c.json({ process_id: String(job.processId), filename: job.filename, status: job.status });
    },
    async batchStatusV1Get({ c, query, caller }) {
      return c.json(statusV1(jobs.get(query.process_id, caller.account)));
    },
    async batchStatusV1Post({ c, body, caller }) {
      return c.json(statusV1(jobs.get(body.process_id, caller.account)));
    },
    async batchDownloadV1({ c, body, caller }) {
      return c.json(await jobs.results(body.process_id, caller.account));
    },
    async batchUploadV1({ c, file, caller }) {
      const job = await upload(caller, file, false);
      return c.json({ process_id: String(job.processId), filename: job.filename, status: job.status });
    },
    async queuedV1({ c, caller }) {
      return c.json({
        processes: jobs
          .active(caller.account)
          .map((j) => ({ ...processV2(j), process_id: String(j.processId) })),
      });
    },
    async cancelV1({ c, body, caller }) {
      return c.json(statusV1(await jobs.cancel(body.process_id, caller.account)));
    },

    async verifyV2({ c, body, query, caller }) {
      const outcome = await verifyOne(caller, body.email);
      const answer = { email: outcome.email, status: toV2Status(outcome.deliverability) };
      if (query.metadata === "true")
        return c.json({ ...answer, ...v2Metadata(outcome, new Date().toISOString()) });
      return c.json(answer);
    },
    async batchV2({ c, file, query, caller }) {
      const job = await upload(caller, file, query.metadata === "true");
      return c.json({ process_id: job.processId, filename: job.filename, status: job.status });
    },
    async jobsV2({ c, caller }) {
      return c.json({ processes: jobs.active(caller.account).map(processV2) });
    },
    async jobStatusV2({ c, params, caller }) {
      return c.json(statusV2(jobs.get(params.process_id, caller.account)));
    },
    async jobCancelV2({ c, params, caller }) {
      return c.json(statusV2(await jobs.cancel(params.process_id, caller.account)));
    },
    async jobDownloadV2({ c, params, caller }) {
      const job = jobs.get(params.process_id, caller.account);
      const results = await jobs.results(params.process_id, caller.account);
      const base = job.filename.replace(/\.[^.]*$/, "").replace(/[^\w.-]+/g, "_") || "results";
      c.header("Content-Type", "text/csv; charset=utf-8");
      c.header("Content-Disposition", `attachment; filename="${base}-results.csv"`);
      return c.body(toResultsCsv(results));
    },
  };
  return handlers;
}
