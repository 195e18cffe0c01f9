import { z } from "zod";
import { filterSchemas } from "./filter";
import { REVEALS } from "./inferred";
import { USER_NAME } from "./team";

/**
 * The proxy's own API for spending under the team's control (not operations of the service): the
 * review before a purchase (what is already the team's, what is suppressed, what is new and what
 * it costs), suppression lists, monthly caps and approval thresholds, approval requests and the
 * month's spend per person. The proxy validates bodies with these schemas and the app reads the
 * answers with them. Errors are the proxy's usual `{ detail, code? }`.
 */

/** Codes on the proxy's answers that the app acts on. */
export const SPENDING_CODES = {
  /** 403: the purchase would pass a monthly cap (the person's or the team's); nothing was sent. */
  capReached: "CAP_REACHED",
  /**
   * 202: the purchase is above the person's approval threshold; an approval request was made
   * (`approvalRequested` in the body). The same Idempotency-Key sent again after an admin approved
   * it gets the purchase's answer (it runs once, when approved).
   */
  approvalRequested: "APPROVAL_REQUESTED",
  /** 403: an admin denied this request (the same Idempotency-Key is refused from then on). */
  approvalDenied: "APPROVAL_DENIED",
} as const;

/**
 * What a purchase does with contacts the team already owns (header `X-Owned-Contacts` on an export
 * start and in the export review). `leave-out` (the default): the export's filter leaves them out,
 * so the service never delivers or charges them. `add-free`: left out of the purchase, and the
 * rows the team has are added to the file for nothing. `buy-again`: bought again (fresh data).
 */
export const OWNED_CHOICES = ["leave-out", "add-free", "buy-again"] as const;
export type OwnedChoice = (typeof OWNED_CHOICES)[number];
export const OWNED_HEADER = "x-owned-contacts";

/**
 * The saved audience a purchase is made from (header `X-Audience-Name` on Enrich, Preview and an
 * export start, percent-encoded UTF-8): the ledger's and the approval request's audience name. A
 * label only: it changes nothing bought, so it is not part of the request the key is bound to.
 */
export const AUDIENCE_HEADER = "x-audience-name";
export const AUDIENCE_NAME_MAX = 200;

/** The header's value for a name (percent-encoded, within the length the proxy keeps). */
export function audienceHeaderValue(name: string): string {
  return encodeURIComponent(name.trim().slice(0, AUDIENCE_NAME_MAX));
}

/** The name a header carries, or null when absent, empty or not percent-encoded UTF-8. */
export function audienceNameOfHeader(value: string | undefined): string | null {
  if (!value) return null;
  try {
    // Control characters (a NUL among them) are no part of a name people read.
    const name = [...decodeURIComponent(value)]
      .filter((c) => c >= " " && c !== "\u007f")
      .join("")
      .trim()
      .slice(0, AUDIENCE_NAME_MAX);
    return name === "" ? null : name;
  } catch {
    return null;
  }
}

const reveal = z.enum(REVEALS);
const columns = z.array(z.string()).max(200).nullable().optional();

/** `POST /api/purchases/review`: nothing is spent; the counts are the service's (free) answers. */
export const reviewRequest = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("enrich"),
    personIds: z.array(z.string().max(200)).min(1).max(1000),
    reveal,
    columns,
  }),
  z.strictObject({
    kind: z.literal("export"),
    filter: filterSchemas.root,
    maxRows: z.number().int().min(1),
    reveal,
    columns,
    owned: z.enum(OWNED_CHOICES).default("leave-out"),
  }),
]);
export type ReviewRequest = z.input<typeof reviewRequest>;

/** A monthly cap as it stands for one purchase: what is set, spent this month and left. */
export const capStanding = z.object({
  /** Whose cap: the person's, or the team's. */
  scope: z.enum(["person", "team"]),
  cap: z.number(),
  /** Charged this month plus what purchases under way and outcomes not known may cost. */
  spent: z.number(),
  left: z.number(),
});
export type CapStanding = z.output<typeof capStanding>;

/** What the team's rules say about a purchase of this estimate, before anything is sent. */
export const policyVerdict = z.object({
  /** `ok`: it can be bought now; `approval`: it becomes a request an admin approves; `refused`: a cap. */
  verdict: z.enum(["ok", "approval", "refused"]),
  /** The sentence for people (why refused, or who must approve). */
  reason: z.string().nullable(),
  caps: z.array(capStanding),
  /** The person's approval threshold in credits (null: none). */
  approvalThreshold: z.number().nullable(),
});
export type PolicyVerdict = z.output<typeof policyVerdict>;

export const enrichReview = z.object({
  kind: z.literal("enrich"),
  selected: z.number().int(),
  /** Owned within the retention with these columns and the same or a wider reveal: served free. */
  alreadyYours: z.array(z.string()),
  /** On a suppression list (the team must not contact them): left out, not sent. */
  suppressed: z.array(z.string()),
  /** Sent to the service and paid for (at most `credits`). */
  toBuy: z.array(z.string()),
  /** The most the new ones can cost (every row found, every revealed email and mobile present). */
  credits: z.number(),
  policy: policyVerdict,
});
export type EnrichReview = z.output<typeof enrichReview>;

export const exportReview = z.object({
  kind: z.literal("export"),
  /** People in the audience. */
  audience: z.number().int(),
  /** Of them, on a suppression list: never bought, never in the file. */
  suppressed: z.number().int(),
  /** Of the rest, already the team's (this reveal and columns, within the retention). */
  owned: z.number().int(),
  owned_choice: z.enum(OWNED_CHOICES),
  /** Rows the service will deliver and charge (after maxRows). */
  rows: z.number().int(),
  withEmail: z.number().int(),
  withMobile: z.number().int(),
  /** The service's estimate for those rows. */
  credits: z.number(),
  /** Owned rows added to the file for nothing (`add-free`). */
  freeRows: z.number().int(),
  balance: z.number(),
  sufficient: z.boolean(),
  /** Plain words on what could not be applied before the purchase (kinds of suppression entry). */
  notes: z.array(z.string()),
  policy: policyVerdict,
});
export type ExportReview = z.output<typeof exportReview>;

export const reviewAnswer = z.discriminatedUnion("kind", [enrichReview, exportReview]);
export type ReviewAnswer = z.output<typeof reviewAnswer>;

/** Kinds of do-not-contact entry. Emails apply where they match a contact the team owns. */
export const SUPPRESSION_KINDS = ["domain", "companyId", "personId", "linkedin", "email"] as const;
export type SuppressionKind = (typeof SUPPRESSION_KINDS)[number];
export const SUPPRESSION_KIND_WORDS: Record<SuppressionKind, string> = {
  domain: "Company domains",
  companyId: "Company ids",
  personId: "Contact ids",
  linkedin: "LinkedIn profiles",
  email: "Email addresses",
};

/** `POST /api/suppression`: a new list, from pasted text or an uploaded CSV's text. */
/** A do-not-contact list's pasted or uploaded text: its own body limit, above the proxy's 1 MiB. */
export const SUPPRESSION_TEXT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The most exclusions one purchase carries in its filter (do-not-contact entries, and the ids of
 * contacts the team owns that an export leaves out): beyond it the purchase is refused in words,
 * never sent with a filter the service may refuse or take minutes to read.
 */
export const EXCLUSIONS_MAX = 100_000;

export const suppressionCreate = z.strictObject({
  name: z.string().trim().min(1, "Give the list a name.").max(120),
  /** Pasted lines, or a CSV file's text (a header row naming the kind is read, else each value's shape). */
  text: z.string().max(SUPPRESSION_TEXT_MAX_BYTES),
});
/** `POST /api/suppression/:id/entries`: more entries for a list. */
export const suppressionAdd = z.strictObject({ text: z.string().max(SUPPRESSION_TEXT_MAX_BYTES) });

export const suppressionList = z.object({
  id: z.string(),
  name: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  counts: z.record(z.enum(SUPPRESSION_KINDS), z.number().int()),
  entries: z.number().int(),
});
export type SuppressionList = z.output<typeof suppressionList>;

export const suppressionImport = z.object({
  list: suppressionList,
  added: z.number().int(),
  /** Already on this list. */
  duplicates: z.number().int(),
  /** Lines that are none of the kinds, with why (at most 100 listed). */
  rejected: z.array(z.object({ line: z.number().int(), value: z.string(), reason: z.string() })),
  rejectedTotal: z.number().int(),
});
export type SuppressionImport = z.output<typeof suppressionImport>;

export const suppressionLists = z.object({ lists: z.array(suppressionList) });

/** `GET /api/suppression/:id/entries?kind=&after=`: a page of a list's entries. */
export const suppressionEntries = z.object({
  entries: z.array(z.object({ kind: z.enum(SUPPRESSION_KINDS), value: z.string() })),
  next: z.string().nullable(),
});

/** Credits, or blank (null): no cap of its own (the team's pool), no approval needed. */
const credits = z.number().int().min(0).max(1_000_000_000).nullable();

/** `GET /api/spending/caps` (everyone reads; admins `PUT` the same shape). */
export const capsSchema = z.object({
  teamMonthlyCap: credits,
  people: z.array(
    z.object({
      name: z.string().regex(USER_NAME),
      monthlyCap: credits,
      approvalThreshold: credits,
    }),
  ),
});
export type Caps = z.output<typeof capsSchema>;
export const capsUpdate = z.strictObject({
  teamMonthlyCap: credits.optional(),
  people: z
    .array(
      z.strictObject({
        name: z.string().regex(USER_NAME),
        monthlyCap: credits,
        approvalThreshold: credits,
      }),
    )
    .optional(),
});

export const APPROVAL_STATES = ["waiting", "approved", "denied", "ran"] as const;
export const approvalSchema = z.object({
  id: z.string(),
  requestedBy: z.string(),
  requestedAt: z.string(),
  /** `enrich`, `preview` or `exportStart`. */
  operation: z.string(),
  /** What it buys, in a line ("Enrich 12 contacts, emails revealed"). */
  summary: z.string(),
  creditsEstimated: z.number(),
  audienceName: z.string().nullable(),
  state: z.enum(APPROVAL_STATES),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  /** Why denied, or what running it came to ("charged 24 credits", "outcome not known"). */
  outcome: z.string().nullable(),
});
export type Approval = z.output<typeof approvalSchema>;
export const approvalsAnswer = z.object({ approvals: z.array(approvalSchema) });
/** `POST /api/approvals/:id/deny`. */
export const denyBody = z.strictObject({ reason: z.string().max(500).optional() });

/** `GET /api/spending/summary?month=YYYY-MM`: the month's spend per person against the caps. */
export const spendingSummary = z.object({
  month: z.string(),
  team: z.object({ spent: z.number(), cap: z.number().nullable() }),
  people: z.array(
    z.object({
      name: z.string(),
      spent: z.number(),
      cap: z.number().nullable(),
      approvalThreshold: z.number().nullable(),
      /** Ledger entries whose outcome is not known this month (check the balance). */
      unknown: z.number().int(),
    }),
  ),
});
export type SpendingSummary = z.output<typeof spendingSummary>;
