import { z } from "zod";
import { USER_NAME } from "./team";

/**
 * The ledger (`GET /api/ledger`): one row per outcome of every spend the proxy journals (Enrich,
 * Preview, Export, email verification single and batch, company resolve and discover), written in
 * the transaction that commits the journal's answer. Admins read everyone's; others only their own.
 */

/** What each spending operation is, in words (the Spending page, the ledger's CSV). */
export const LEDGER_OPERATION_WORDS: Readonly<Record<string, string>> = {
  enrich: "Enrich",
  preview: "Sample with contact details",
  exportStart: "Export",
  verifyV1: "Email verification",
  verifyV2: "Email verification",
  batchV1: "Batch email verification",
  batchUploadV1: "Batch email verification",
  batchV2: "Batch email verification",
  organizationResolve: "Company search by name",
  organizationDiscover: "Company discovery",
};
/**
 * `pending`: an export or a batch verification started and not yet ended (charged on completion,
 * an export exactly its estimate and nothing if it ends in ERROR or CANCELLED; a batch one credit
 * per definite answer in its results); its estimate counts against the caps meanwhile.
 */
export const LEDGER_OUTCOMES = ["charged", "free", "refused", "unknown", "pending"] as const;
export type LedgerOutcome = (typeof LEDGER_OUTCOMES)[number];

/** A month, UTC: `2026-11`. */
export const LEDGER_MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export const ledgerQuery = z.strictObject({
  person: z.string().regex(USER_NAME).optional(),
  month: z.string().regex(LEDGER_MONTH, "Give the month as YYYY-MM.").optional(),
});
export type LedgerQuery = z.output<typeof ledgerQuery>;

export const ledgerEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  person: z.string(),
  operation: z.string(),
  audienceName: z.string().nullable(),
  filter: z.unknown().nullable(),
  /** Rows in the answer, bought and served from the team's store. */
  rows: z.number().int(),
  /** Of those, served from the store for nothing. */
  rowsFree: z.number().int(),
  creditsEstimated: z.number().nullable(),
  /** null when the outcome is unknown (sent, no answer): check the balance. */
  creditsCharged: z.number().nullable(),
  outcome: z.enum(LEDGER_OUTCOMES),
  /** The Idempotency-Key's last four characters. */
  keyLast4: z.string(),
  /** What a verification or company search was for ("ada@acme.com", "leads.csv: 120 addresses"). */
  detail: z.string().nullable().default(null),
});
export type LedgerEntry = z.output<typeof ledgerEntrySchema>;

export const ledgerAnswer = z.object({
  entries: z.array(ledgerEntrySchema),
  totals: z.object({
    entries: z.number().int(),
    rows: z.number().int(),
    rowsFree: z.number().int(),
    /** The sum of credits charged (unknown outcomes count nothing: see `unknown`). */
    creditsCharged: z.number(),
    /** Entries whose outcome is unknown. */
    unknown: z.number().int(),
  }),
});
export type LedgerAnswer = z.output<typeof ledgerAnswer>;
