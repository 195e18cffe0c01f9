import { z } from "zod";
import { EXPORT_STATUSES, REVEALS } from "../../../contract/inferred";
import { storedValue } from "../../lib/store";

/**
 * What was paid for, kept on this device: the rows of the last Enrich and the last Preview (so a
 * reload, or a CSV that failed to save, never means paying again), and the export being followed
 * (so a reload returns to its progress, and its file downloads once). A Preview and an export
 * belong to the audience they were bought from (`audienceKey`, its canonical key): Checkout shows
 * them under that audience only, and under another one says where they are (`ofAudience`).
 */

/** Which audience a purchase was made from: its canonical key, and its name or description. */
const boughtFrom = {
  audienceKey: z.string().optional(),
  audience: z.string().optional(),
};

/** Whether `record` was bought from the audience whose canonical key is `key` (older records: yes). */
export function ofAudience(record: { audienceKey?: string | undefined }, key: string): boolean {
  return record.audienceKey === undefined || record.audienceKey === key;
}

const row = z.record(z.string(), z.unknown());

const rowsResult = z.object({
  v: z.literal(1),
  /** When it was bought (ISO). */
  at: z.string(),
  /** What was bought, in a sentence. */
  summary: z.string(),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
  rows: z.array(row),
  notFound: z.array(z.string()),
  creditsCharged: z.number(),
  creditsRemaining: z.number(),
  /** Entries not sent because an earlier call was refused (e.g. 402 on the second of three calls). */
  unsent: z.number().int().default(0),
  ...boughtFrom,
});
export type RowsResult = z.infer<typeof rowsResult>;

export const lastEnrich = storedValue("ab.checkout.last-enrich.v1", rowsResult);
export const lastPreview = storedValue("ab.checkout.last-preview.v1", rowsResult);

const followedExport = z.object({
  v: z.literal(1),
  exportId: z.string(),
  name: z.string().nullable(),
  rows: z.number().int(),
  credits: z.number(),
  summary: z.string(),
  /** The columns the estimate promised, in order. */
  columns: z.array(z.string()),
  startedAt: z.string(),
  /** The file was handed to the browser once already: a reload does not download it again. */
  downloaded: z.boolean(),
  /** The last status seen, so a reload shows it before the first poll answers. */
  lastStatus: z.enum(EXPORT_STATUSES).optional(),
  /** Rows the team already had, added to the file for free (beside the `rows` bought). */
  freeRows: z.number().int().nonnegative().optional(),
  ...boughtFrom,
});
export type FollowedExport = z.infer<typeof followedExport>;

export const activeExport = storedValue("ab.checkout.export.v1", followedExport);
