import type { SomeHandlers } from "../http/pipeline";
import { type ExportJobs, exportStatusBody } from "../jobs/exports";

export function exportHandlers(deps: {
  exports: ExportJobs;
}): SomeHandlers<"exportStart" | "exportStatus" | "exportCancel" | "exportDownload" | "exports"> {
  const { exports } = deps;
  return {
    async exportStart({ c, body, caller }) {
      const record = await exports.start(caller.account, body);
      return c.json(
        { exportId: record.exportId, status: "QUEUED", rows: record.rows, credits: record.credits },
        202,
      );
    },
    async exportStatus({ c, params, caller }) {
      return c.json(exportStatusBody(exports.get(params.exportId, caller.account)));
    },
    async exportCancel({ c, params, caller }) {
      return c.json(exportStatusBody(await exports.cancel(params.exportId, caller.account)));
    },
    async exportDownload({ c, params, caller }) {
      return exports.download(c, params.exportId, caller.account);
    },
    async exports({ c, caller }) {
      return c.json({ exports: exports.list(caller.account).map(exportStatusBody) });
    },
  };
}
