import { z } from "zod";
import { filterSchemas, type GroupNode } from "./filter";
import type { OperationSpec } from "./routes";

/**
 * The proxy's own API for the team (not operations of the service): people and roles, saved
 * audiences with their versions, the audit list and who started which job. The proxy validates
 * every body with these schemas and the app reads every answer with them, so the two cannot drift.
 * Errors are the proxy's usual `{ detail, code? }`.
 */

/**
 * What each role may do. `admin`: people, roles, key rotation and all a buyer may do. `buyer`:
 * spends (preview, enrich, export, verification) and downloads what was bought. `analyst`: builds,
 * counts, samples, insights, company tools, saves and shares audiences; never spends or downloads
 * purchased data.
 */
export const ROLES = ["admin", "buyer", "analyst"] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.output<typeof roleSchema>;

export const ROLE_WORDS: Record<Role, string> = {
  admin: "Admin: manages people and the key, and buys",
  buyer: "Buyer: buys contacts, exports and verifications",
  analyst: "Analyst: builds, counts and shares audiences; cannot buy",
};

/** Sign-in names: letters, digits, `.`, `_`, `@`, `-`, 1 to 64 of them. */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** The one person of local mode (loopback, nobody to sign in): the admin. */
export const LOCAL_PERSON = "local";
/** The actor of `npm run users`. */
export const CLI_PERSON = "cli";
/**
 * Names the proxy records for itself, never a person's: audiences and the audit list name their
 * owners and actors by name, so a person called `local` would own what local mode saved, and one
 * called `cli` would look like the command line.
 */
export const RESERVED_NAMES: readonly string[] = [LOCAL_PERSON, CLI_PERSON];
export const RESERVED_NAME_MESSAGE =
  "The names local and cli are the proxy's own (the local admin and the command line): choose another.";
export const isReservedName = (name: string) => RESERVED_NAMES.includes(name.toLowerCase());

export const personNameSchema = z
  .string()
  .regex(USER_NAME, "Use 1 to 64 letters, digits, dots, dashes, underscores or @.")
  .refine((name) => !isReservedName(name), RESERVED_NAME_MESSAGE);
export const passwordSchema = z
  .string()
  .min(8, "Use a password of at least 8 characters.")
  .max(1024, "Use a password of at most 1,024 characters.");

/** Codes on the proxy's refusals that the app acts on. */
export const TEAM_CODES = {
  /** A `PUT` named a version that is no longer the latest: `current` holds the latest. */
  versionConflict: "VERSION_CONFLICT",
  /** The caller's role does not allow this (the detail says which role does). */
  roleRequired: "ROLE_REQUIRED",
  /** The change would leave the team without an admin. */
  lastAdmin: "LAST_ADMIN",
  /** A person of that name exists already. */
  nameTaken: "NAME_TAKEN",
  /** People listed in USERS_FILE are changed in that file, not here. */
  managedByFile: "MANAGED_BY_FILE",
  /** Local mode tried to add a person to a team that has people already: sign in instead. */
  teamExists: "TEAM_EXISTS",
} as const;

/**
 * Who may do what: one table for the proxy (which enforces it) and the app (which says it before
 * the click), so the two cannot disagree. Pure; `mayCall` reads the operation table's `spends`
 * flag plus the lists of downloads of purchased data, key rotations and job cancels.
 */
export const DOWNLOADS: ReadonlySet<string> = new Set(["exportDownload", "batchDownloadV1", "jobDownloadV2"]);
export const ROTATIONS: ReadonlySet<string> = new Set(["rotateV1", "rotateV2"]);
/** Cancels of a job: allowed to whoever started it (team_jobs) or an admin; see `mayCancel`. */
export const CANCELS: Readonly<Record<string, "export" | "verification">> = {
  exportCancel: "export",
  cancelV1: "verification",
  jobCancelV2: "verification",
};

/** The roles allowed each kind of act. */
export const ALLOWED_ROLES = {
  spend: ["admin", "buyer"],
  download: ["admin", "buyer"],
  cancel: ["admin", "buyer"],
  rotate: ["admin"],
  manageTeam: ["admin"],
} as const satisfies Record<string, readonly Role[]>;

const A: Record<Role, string> = { admin: "an admin", buyer: "a buyer", analyst: "an analyst" };

/** The roles in words, most powerful last: "a buyer or an admin", "an admin". */
export function rolesInWords(roles: readonly Role[]): string {
  return [...roles]
    .sort((a, b) => ROLES.indexOf(b) - ROLES.indexOf(a))
    .map((role) => A[role])
    .join(" or ");
}

export type Verdict = { ok: true } | { ok: false; reason: string };
const OK: Verdict = { ok: true };
const deny = (what: string, roles: readonly Role[], role: Role): Verdict => ({
  ok: false,
  reason: `${what} needs ${rolesInWords(roles)}; you are signed in as ${A[role]}. Ask an admin of your team.`,
});

/** What each spending operation is, in words (a refusal says what was refused). */
const SPEND_WORDS: readonly { ids: readonly string[]; what: string }[] = [
  {
    ids: ["verifyV1", "verifyV2", "batchV1", "batchUploadV1", "batchV2"],
    what: "Verifying email addresses",
  },
  { ids: ["preview", "enrich", "exportStart"], what: "Buying contacts" },
  {
    ids: ["organizationResolve", "organizationDiscover"],
    what: "Resolving and discovering organizations uses the team's credits, so it",
  },
];
export function spendWords(id: string): string {
  return SPEND_WORDS.find((w) => w.ids.includes(id))?.what ?? "Spending the team's credits";
}

/** What the caller's role allows for one operation (the job-level check of cancels is separate). */
export function mayCall(role: Role, op: Pick<OperationSpec, "id" | "spends">): Verdict {
  if (ROTATIONS.has(op.id))
    return ALLOWED_ROLES.rotate.includes(role as "admin")
      ? OK
      : deny("Rotating the team's key", ALLOWED_ROLES.rotate, role);
  if (op.spends && !(ALLOWED_ROLES.spend as readonly Role[]).includes(role))
    return deny(spendWords(op.id), ALLOWED_ROLES.spend, role);
  if (DOWNLOADS.has(op.id) && !(ALLOWED_ROLES.download as readonly Role[]).includes(role))
    return deny("Downloading purchased data", ALLOWED_ROLES.download, role);
  if (op.id in CANCELS && !(ALLOWED_ROLES.cancel as readonly Role[]).includes(role))
    return deny("Cancelling a job", ALLOWED_ROLES.cancel, role);
  return OK;
}

/**
 * Cancelling a job: the person who started it, or an admin. A job the proxy has no record of
 * (started before this version, or directly at the service) may be cancelled by any buyer: the
 * proxy cannot tell whose it is, and a stuck job must not need an admin.
 */
export function mayCancel(
  person: { name: string | null; role: Role },
  startedBy: string | null,
  kind: "export" | "verification",
): Verdict {
  if (person.role === "admin" || (startedBy !== null && startedBy === person.name)) return OK;
  const what = kind === "export" ? "this export" : "this verification job";
  if (startedBy !== null)
    return { ok: false, reason: `Only ${startedBy}, who started ${what}, or an admin may cancel it.` };
  return (ALLOWED_ROLES.cancel as readonly Role[]).includes(person.role)
    ? OK
    : deny(`Cancelling ${what}`, ALLOWED_ROLES.cancel, person.role);
}

/** The team's own pages (people, audit): admins only. */
export function mayManageTeam(role: Role): Verdict {
  return (ALLOWED_ROLES.manageTeam as readonly Role[]).includes(role)
    ? OK
    : deny("Managing the team's people", ALLOWED_ROLES.manageTeam, role);
}

export const personSchema = z.object({
  name: z.string(),
  role: roleSchema,
  /** `file`: listed in USERS_FILE (changed there); `team`: added here or with `npm run users`. */
  source: z.enum(["file", "team"]),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
});
export type Person = z.output<typeof personSchema>;

export const peopleAnswer = z.object({ people: z.array(personSchema) });
export const addPersonBody = z.strictObject({
  name: personNameSchema,
  role: roleSchema,
  password: passwordSchema,
});
export const changePersonBody = z
  .strictObject({ role: roleSchema.optional(), password: passwordSchema.optional() })
  .refine((b) => b.role !== undefined || b.password !== undefined, "Send a role, a password or both.");

/** Audience names: what a person types, trimmed, 1 to 120 characters. */
export const audienceNameSchema = z
  .string()
  .trim()
  .min(1, "Give the audience a name.")
  .max(120, "Use a name of at most 120 characters.");

/** A saved audience's id, in its short link `/a/<id>`. */
export const AUDIENCE_ID = /^[A-Za-z0-9_-]{6,32}$/;
export const audienceIdSchema = z.string().regex(AUDIENCE_ID);

/** A saved filter: a complete tree the service would take, nested no deeper than it allows. */
export const savedFilterSchema = filterSchemas.root.transform((filter, ctx): GroupNode => {
  if (filter) return filter;
  ctx.addIssue({ code: "custom", message: "An audience needs a filter." });
  return z.NEVER;
});

export const audienceSchema = z.object({
  id: z.string(),
  name: z.string(),
  filter: savedFilterSchema,
  owner: z.string(),
  shared: z.boolean(),
  /** The audience's size when last saved, or null if it was not known. */
  lastCount: z.number().int().nonnegative().nullable(),
  /** Increases by one with every save; a `PUT` names the version it replaces. */
  version: z.number().int().positive(),
  createdAt: z.string(),
  createdBy: z.string(),
  updatedAt: z.string(),
  updatedBy: z.string(),
  /** Whether the caller may change it (owner; or anyone the team shares it with). */
  canEdit: z.boolean(),
  /** Whether the caller may delete it or change who sees it (owner or admin). */
  canManage: z.boolean(),
});
export type Audience = z.output<typeof audienceSchema>;

export const audiencesAnswer = z.object({ audiences: z.array(audienceSchema) });

export const createAudienceBody = z.strictObject({
  name: audienceNameSchema,
  filter: savedFilterSchema,
  shared: z.boolean().default(false),
  lastCount: z.number().int().nonnegative().nullable().default(null),
  /** Set when moving an audience saved in a browser: the same one sent twice is created once. */
  clientId: z.string().min(1).max(64).optional(),
});

/** `PUT /api/audiences/:id`: the fields to change and the version they replace. */
export const updateAudienceBody = z.strictObject({
  version: z.number().int().positive(),
  name: audienceNameSchema.optional(),
  filter: savedFilterSchema.optional(),
  shared: z.boolean().optional(),
  lastCount: z.number().int().nonnegative().nullable().optional(),
});

/** The 409 of a `PUT` over a newer version: who saved it and what it holds. */
export const versionConflictAnswer = z.object({
  detail: z.string(),
  code: z.literal(TEAM_CODES.versionConflict),
  current: audienceSchema,
});

export const audienceVersionSchema = z.object({
  version: z.number().int().positive(),
  name: z.string(),
  filter: savedFilterSchema,
  shared: z.boolean(),
  lastCount: z.number().int().nonnegative().nullable(),
  savedAt: z.string(),
  savedBy: z.string(),
  /** Set when this version brought an earlier one back. */
  restoredFrom: z.number().int().positive().nullable(),
});
export type AudienceVersion = z.output<typeof audienceVersionSchema>;
export const audienceVersionsAnswer = z.object({ versions: z.array(audienceVersionSchema) });

/**
 * `PUT /api/audiences/open`: the audience a person has open (and the version their edits start
 * from), so that it reopens in any window after they sign in. `workingKey` is the canonical key
 * (contract/canonical.ts) of the tree they were last editing with it open, which tells a window
 * whether the tree it holds is that audience's. Kept per person by the proxy; `DELETE` forgets it.
 */
export const openAudienceBody = z.strictObject({
  id: audienceIdSchema,
  version: z.number().int().positive(),
  workingKey: z.string().min(1),
});

/** `GET /api/audiences/open`: what the person last had open, as it was then; null for nothing. */
export const openAudienceAnswer = z.object({
  open: z
    .object({
      /** The audience as it is now (its name, who may edit it, its latest version). */
      audience: audienceSchema,
      /** The version the person's edits start from (a later Save meets any newer one as a conflict). */
      opened: audienceVersionSchema,
      workingKey: z.string(),
    })
    .nullable(),
});
export type OpenAudienceAnswer = z.output<typeof openAudienceAnswer>;

/** `POST /api/audiences/:id/restore`: brings `restore` back as a new version on top of `version`. */
export const restoreAudienceBody = z.strictObject({
  version: z.number().int().positive(),
  restore: z.number().int().positive(),
});

export const AUDIT_ACTIONS = [
  "person.add",
  "person.remove",
  "person.role",
  "person.password",
  "audience.create",
  "audience.update",
  "audience.restore",
  "audience.delete",
  "audience.undelete",
  /** A person's audiences passed to someone else (the first admin, or whoever removed them). */
  "audience.owner",
  "key.rotate",
  /** Do-not-contact lists (src/contract/spending.ts): made, added to, deleted. */
  "suppression.create",
  "suppression.add",
  "suppression.delete",
  /** A monthly cap or approval threshold changed (target: the person, or null for the team's cap). */
  "spending.caps",
  /** A purchase above its buyer's threshold approved (and run) or denied (target: the requester). */
  "approval.approve",
  "approval.deny",
] as const;
export const auditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actor: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  /** What it was done to: a person's name, an audience's id. */
  target: z.string().nullable(),
  /** A sentence a person can read ("role buyer → analyst", "version 3, renamed to …"). */
  summary: z.string(),
});
export type AuditEntry = z.output<typeof auditEntrySchema>;
export const auditAnswer = z.object({ entries: z.array(auditEntrySchema), more: z.boolean() });

/** Jobs started through this proxy (exports, verification batches) and who started them. */
export const teamJobSchema = z.object({
  kind: z.enum(["export", "verification"]),
  jobId: z.string(),
  person: z.string(),
  at: z.string(),
});
export type TeamJob = z.output<typeof teamJobSchema>;
export const teamJobsAnswer = z.object({ jobs: z.array(teamJobSchema) });
