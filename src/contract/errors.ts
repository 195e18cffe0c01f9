import { z } from "zod";
import { ERROR_CODES } from "./inferred";

/** The documented validation error record (FastAPI's shape). */
export const validationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number().int()])),
  msg: z.string(),
  type: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});
export const validationRecordSchema = z.object({ detail: z.array(validationIssueSchema) });
export type ValidationIssue = z.infer<typeof validationIssueSchema>;
export type ValidationRecord = z.infer<typeof validationRecordSchema>;

/** 401 / 403 / 400 / 409 / 404 / 410 bodies: `{ detail: string }` (documented). */
export const detailErrorSchema = z.object({ detail: z.string() });

/** Inferred 429 bodies (the public docs give `{ detail }`; our code tells the two kinds apart). */
export const rateLimitedSchema = z.object({ detail: z.string(), code: z.literal(ERROR_CODES.rateLimited) });
export const freePreviewCapSchema = z.object({
  detail: z.string(),
  code: z.literal(ERROR_CODES.freePreviewCap),
  resetAt: z.string(),
});
/** Inferred 402 body. */
export const insufficientCreditsSchema = z.object({
  detail: z.string(),
  code: z.literal(ERROR_CODES.insufficientCredits),
  required: z.number(),
  balance: z.number(),
});

/**
 * Codes the proxy (not the service) puts on its 502 answer to a spend, so the app can tell "it may
 * have been done: sending it again under the same Idempotency-Key only repeats this answer" from
 * "nothing happened, try again".
 */
export const OUTCOME_CODES = {
  /** The service answered a 5xx other than 503: it may have acted. */
  upstreamFailed: "UPSTREAM_FAILED",
  /** The service answered 2xx but its body broke or could not be read: it acted, its result is lost. */
  answerCutOff: "UPSTREAM_ANSWER_CUT_OFF",
} as const;

/** Codes the proxy puts on its own answers to a spend (the spend journal's verdicts). */
export const SPEND_CODES = {
  /**
   * It was sent, and whether it was carried out (and charged) cannot be known; the same key will
   * never be sent on again (409, or 502/504 on the attempt itself). Only a new key can buy it again.
   */
  outcomeUnknown: "OUTCOME_UNKNOWN",
  /** 409: the key was already used for a different request; this one was not carried out. */
  keyReused: "IDEMPOTENCY_KEY_REUSED",
  /** 503: the proxy could not record the spend before sending it, so it sent nothing. */
  journalUnavailable: "JOURNAL_UNAVAILABLE",
  /** 409: the same spend is still under way in another proxy instance; the same key later gets its answer. */
  inProgress: "SPEND_IN_PROGRESS",
  /**
   * 409: this key's purchase was made (the ledger has it) and its answer is no longer kept: it is
   * never sent again, at any age. Buying the same thing again is a new purchase, with a new key.
   */
  alreadyBought: "PURCHASE_ALREADY_MADE",
  /**
   * 409: some of these contacts are being bought by another purchase of the team (an Enrich of the
   * same people, an export sharing them) that has not finished; nothing was sent or charged.
   */
  beingBought: "BEING_BOUGHT",
  /** 503: a key rotation was not sent, because a new key could not have been stored. */
  keyStoreUnwritable: "KEY_STORE_UNWRITABLE",
} as const;

export type Location = "body" | "query" | "path";

/**
 * Turns zod issues into the service's 422 record. `loc` starts with where the input came from,
 * then the path into it, as FastAPI does; `type` and `msg` use pydantic's vocabulary so that a
 * client written against the live service reads ours the same way.
 */
export function toValidationRecord(issues: readonly z.core.$ZodIssue[], where: Location, input: unknown) {
  const detail: ValidationIssue[] = [];
  for (const issue of issues) {
    const loc = [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const at = valueAt(input, issue.path);
    if (issue.code === "unrecognized_keys") {
      // One entry per extra key, as pydantic reports `extra="forbid"`.
      for (const key of issue.keys) {
        detail.push({
          loc: [...loc, key],
          msg: "Extra inputs are not permitted",
          type: "extra_forbidden",
          input: (at as Record<string, unknown> | undefined)?.[key],
        });
      }
      continue;
    }
    // A refused, absurdly deep input is not echoed back: it could not even be serialised.
    const omitInput =
      issue.code === "custom" && (issue.params as { omitInput?: boolean } | undefined)?.omitInput;
    detail.push({ loc, ...describeIssue(issue, at), ...(omitInput ? {} : { input: at }) });
  }
  return { detail } satisfies ValidationRecord;
}

/** A 422 record with a single entry, for checks made outside zod. */
export function validationError(
  loc: (string | number)[],
  msg: string,
  input?: unknown,
  type = "value_error",
): ValidationRecord {
  return { detail: [{ loc, msg: type === "value_error" ? `Value error, ${msg}` : msg, type, input }] };
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): { msg: string; type: string } {
  switch (issue.code) {
    case "invalid_type": {
      if (input === undefined) return { msg: "Field required", type: "missing" };
      if (issue.message === INT_MESSAGE || issue.expected === "int")
        return { msg: INT_MESSAGE, type: "int_type" };
      const [type, noun] = TYPE_NAMES[String(issue.expected)] ?? [
        `${String(issue.expected)}_type`,
        String(issue.expected),
      ];
      return { msg: `Input should be a valid ${noun}`, type };
    }
    case "invalid_value": {
      if (input === undefined) return { msg: "Field required", type: "missing" };
      const options = issue.values.map((v) => `'${String(v)}'`);
      const list =
        options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}` : options[0];
      return { msg: `Input should be ${list}`, type: options.length > 1 ? "enum" : "literal_error" };
    }
    case "invalid_union": {
      if ("discriminator" in issue && issue.discriminator) {
        if (input === undefined)
          return { msg: "Unable to extract tag using discriminator 'type'", type: "union_tag_not_found" };
        return {
          msg: `Input tag does not match any of the expected tags: 'condition', 'group', 'semantic', 'lookalike'`,
          type: "union_tag_invalid",
        };
      }
      return { msg: issue.message || "Input does not match any allowed shape", type: "union_type" };
    }
    case "too_small":
      return boundRecord(issue.origin, issue.minimum, issue.inclusive, "least");
    case "too_big":
      return boundRecord(issue.origin, issue.maximum, issue.inclusive, "most");
    case "invalid_format":
      return { msg: `Value error, ${issue.message}`, type: "value_error" };
    case "custom": {
      const params = (issue.params ?? {}) as { type?: string };
      if (params.type === "missing") return { msg: "Field required", type: "missing" };
      // A pydantic type of its own (int_type, string_type...) carries its own message.
      if (params.type) return { msg: issue.message, type: params.type };
      return { msg: `Value error, ${issue.message}`, type: "value_error" };
    }
    default:
      return { msg: issue.message, type: "value_error" };
  }
}

/** pydantic's type and noun for each JSON type zod expects. */
const TYPE_NAMES: Record<string, [string, string]> = {
  number: ["float_type", "number"],
  string: ["string_type", "string"],
  boolean: ["bool_type", "boolean"],
  array: ["list_type", "list"],
  object: ["dict_type", "dictionary"],
};

/** zod cannot tell an integer field from a number field when given a string; this message marks integers. */
export const INT_MESSAGE = "Input should be a valid integer";

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let here: unknown = input;
  for (const key of path) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}

/** The 422 record for a body that is not JSON (FastAPI's `json_invalid`). */
export function invalidJsonRecord(error: string): ValidationRecord {
  return { detail: [{ loc: ["body", 0], msg: "JSON decode error", type: "json_invalid", ctx: { error } }] };
}

/** FastAPI's words for a bound: a list's length, a string's length, or a number's size. */
function boundRecord(
  origin: string,
  limit: number | bigint,
  inclusive: boolean | undefined,
  side: "least" | "most",
): { msg: string; type: string } {
  const min = side === "least";
  if (origin === "array" || origin === "set")
    return { msg: `List should have at ${side} ${limit} item(s)`, type: min ? "too_short" : "too_long" };
  if (origin === "string")
    return {
      msg: `String should have at ${side} ${limit} character(s)`,
      type: min ? "string_too_short" : "string_too_long",
    };
  const than = min ? "greater than" : "less than";
  return {
    msg: `Input should be ${than}${inclusive ? " or equal to" : ""} ${limit}`,
    type: `${min ? "greater_than" : "less_than"}${inclusive ? "_equal" : ""}`,
  };
}
