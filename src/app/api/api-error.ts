import { HTTPError, TimeoutError } from "ky";
import {
  detailErrorSchema,
  freePreviewCapSchema,
  insufficientCreditsSchema,
  rateLimitedSchema,
  type ValidationIssue,
  validationRecordSchema,
} from "../../contract/errors";
import { ERROR_CODES } from "../../contract/inferred";
import { TEAM_CODES } from "../../contract/team";
import { formatDateTime, formatNumber } from "../lib/format";

/**
 * The one error the app's API layer throws. Every failure (an HTTP answer that is not 2xx, a
 * timeout, a dropped connection, an answer that does not match the contract) becomes an ApiError
 * with a `kind` the screens switch on, a sentence a person can read, and the parts of the body
 * the screens need (422 issues, 402 required/balance, 429 retryAfter/resetAt).
 */
export type ApiErrorKind =
  | "unauthenticated"
  | "forbidden"
  | "validation"
  | "rate-limited"
  | "budget-exhausted"
  | "insufficient-credits"
  | "upstream"
  | "network"
  | "timeout"
  | "not-found"
  | "conflict"
  | "other";

export interface ApiErrorInit {
  kind: ApiErrorKind;
  /** HTTP status, or 0 when no answer arrived (network, timeout). */
  status: number;
  message: string;
  /** `code` of the body (`RATE_LIMITED`, `FREE_PREVIEW_CAP_REACHED`, `INSUFFICIENT_CREDITS`, ...). */
  code?: string | null;
  /** The parsed JSON body (or the raw text when it was not JSON); null when there was none. */
  body?: unknown;
  issues?: readonly ValidationIssue[];
  required?: number | null;
  balance?: number | null;
  retryAfter?: number | null;
  resetAt?: string | null;
  requestId?: string | null;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly code: string | null;
  readonly body: unknown;
  /** 422: the validation record's entries, each with its `loc`. Empty otherwise. */
  readonly issues: readonly ValidationIssue[];
  /** 402: credits the action needs, and the balance. */
  readonly required: number | null;
  readonly balance: number | null;
  /** 429 (and 503): seconds to wait before trying again, from `Retry-After`. */
  readonly retryAfter: number | null;
  /** FREE_PREVIEW_CAP_REACHED: when the daily View budget resets (ISO date-time). */
  readonly resetAt: string | null;
  /** The proxy's `x-request-id`, to quote when reporting a problem. */
  readonly requestId: string | null;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code ?? null;
    this.body = init.body ?? null;
    this.issues = init.issues ?? [];
    this.required = init.required ?? null;
    this.balance = init.balance ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.resetAt = init.resetAt ?? null;
    this.requestId = init.requestId ?? null;
  }

  /**
   * The proxy refused because of the person's role (403 ROLE_REQUIRED), not the key's: nothing was
   * sent to the service; only another role (ask an admin) would be allowed.
   */
  get roleRequired(): boolean {
    return this.status === 403 && this.code === TEAM_CODES.roleRequired;
  }

  /** Worth trying again unchanged: nothing was refused, the answer just did not come (or was a 5xx). */
  get transient(): boolean {
    return this.kind === "network" || this.kind === "timeout" || this.kind === "upstream";
  }
}

/** `["filter", "children", 2, "value"]` -> `filter › children 2 › value`. */
export function formatPath(loc: readonly (string | number)[]): string {
  const parts: string[] = [];
  for (const step of loc) {
    if (typeof step === "number" && parts.length > 0) parts[parts.length - 1] += ` ${step}`;
    else parts.push(String(step));
  }
  return parts.join(" › ");
}

/** A node's fields as people name them (the rest keep their own name). */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  column: "its field",
  operator: "its comparison",
  value: "its value",
  value2: "its upper end",
  valueList: "its list of values",
  text: "its text",
  domain: "its company domain",
  rbidOrg: "its company ID",
  match: "its match level",
  maxDistance: "its distance",
  op: "its AND / OR",
  negate: "its NOT",
  joinWithPrevious: "its and / or",
  type: "its kind",
  children: "its rules",
};

/**
 * Where an issue points, for people: `["body", "filter", "children", 1, "children", 0, "value"]`
 * -> `rule 2.1, its value`; `["query", "metadata"]` -> `metadata`; nothing -> `the request`.
 */
export function describeLocation(loc: readonly (string | number)[]): string {
  const [head, ...rest] = loc;
  const path = head === "body" || head === "query" || head === "path" ? rest : loc;
  if (path.length === 0) return "the request";
  if (path[0] !== "filter") return formatPath(path);
  const positions: number[] = [];
  let i = 1;
  for (; i + 1 < path.length && path[i] === "children" && typeof path[i + 1] === "number"; i += 2)
    positions.push((path[i + 1] as number) + 1);
  const where = positions.length === 0 ? "the filter" : `rule ${positions.join(".")}`;
  const field = path[i];
  if (field === undefined) return where;
  // A field of ours in words; one we do not know (a typo in a file) as it was written.
  const words = typeof field === "string" ? (FIELD_WORDS[field] ?? `“${field}”`) : `item ${field + 1}`;
  const item = path[i + 1];
  return `${where}, ${words}${typeof item === "number" ? `, item ${item + 1}` : ""}`;
}

function validationMessage(issues: readonly ValidationIssue[]): string {
  const [first] = issues;
  if (!first) return "Some of what was sent is not valid.";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return `Some of what was sent is not valid: ${describeLocation(first.loc)}: ${readableIssue(first.msg)}${more}.`;
}

/** The service's pydantic-style "Value error, ..." prefix says nothing to a person: it is dropped. */
export function readableIssue(msg: string): string {
  return msg.replace(/^Value error, /, "");
}

/** `Retry-After` in seconds: either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function waitPhrase(seconds: number | null): string {
  if (seconds === null) return "in a moment";
  if (seconds <= 1) return "in a second";
  if (seconds < 120) return `in ${seconds} seconds`;
  return `in ${Math.ceil(seconds / 60)} minutes`;
}

function resetPhrase(resetAt: string | null): string {
  if (!resetAt) return "It resets at midnight UTC.";
  const at = new Date(resetAt);
  if (Number.isNaN(at.getTime())) return "It resets at midnight UTC.";
  const time = formatDateTime(at, { timeZone: "UTC" });
  return `It resets at ${time} UTC.`;
}

const DEFAULT_MESSAGES: Record<ApiErrorKind, string> = {
  unauthenticated: "Please sign in.",
  forbidden: "This API key is not allowed to do that.",
  validation: "Some of what was sent is not valid.",
  "rate-limited": "Too many requests right now. Try again in a moment.",
  "budget-exhausted": "Today's free sample budget is used up.",
  "insufficient-credits": "There are not enough credits for this.",
  upstream: "The data service had a problem answering. Try again in a moment.",
  network: "The server could not be reached. Check your connection, then try again.",
  timeout: "The server did not answer in time. Try again.",
  "not-found": "That was not found.",
  conflict: "This conflicts with an earlier request.",
  other: "Something went wrong.",
};

/** A 403 ROLE_REQUIRED without a sentence of its own. */
export const ROLE_REQUIRED_MESSAGE =
  "Your role on this team does not allow this, so nothing was sent. Ask an admin of your team if you need it.";

export function defaultMessage(kind: ApiErrorKind): string {
  return DEFAULT_MESSAGES[kind];
}

function kindOfStatus(status: number): ApiErrorKind {
  if (status === 401) return "unauthenticated";
  if (status === 403) return "forbidden";
  if (status === 400 || status === 413 || status === 422) return "validation";
  if (status === 402) return "insufficient-credits";
  if (status === 404 || status === 410) return "not-found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate-limited";
  if (status === 408 || status === 504) return "timeout";
  if (status >= 500) return "upstream";
  return "other";
}

/**
 * The ApiError of one HTTP answer, from its status, parsed body and headers. Bodies are read with
 * the contract's error schemas; a body that does not match still gives the right kind and a
 * readable sentence (the default for its kind, or its `detail` when that is a string).
 */
export function apiErrorFromAnswer(
  status: number,
  body: unknown,
  headers: Headers = new Headers(),
): ApiError {
  const requestId = headers.get("x-request-id");
  const retryAfter = parseRetryAfter(headers.get("retry-after"));
  const detail = detailErrorSchema.safeParse(body);
  const text = detail.success && detail.data.detail.trim() !== "" ? detail.data.detail : null;
  const code =
    body !== null && typeof body === "object" && typeof (body as { code?: unknown }).code === "string"
      ? (body as { code: string }).code
      : null;
  const base = { status, body, code, requestId, retryAfter };

  if (status === 422) {
    const record = validationRecordSchema.safeParse(body);
    const issues = record.success ? record.data.detail : [];
    return new ApiError({
      ...base,
      kind: "validation",
      issues,
      message: record.success ? validationMessage(issues) : (text ?? defaultMessage("validation")),
    });
  }

  if (status === 402) {
    const parsed = insufficientCreditsSchema.safeParse(body);
    const required = parsed.success ? parsed.data.required : null;
    const balance = parsed.success ? parsed.data.balance : null;
    const message =
      required !== null && balance !== null
        ? `Not enough credits: this needs ${formatNumber(required)} and the balance is ${formatNumber(balance)}.`
        : (text ?? defaultMessage("insufficient-credits"));
    return new ApiError({ ...base, kind: "insufficient-credits", required, balance, message });
  }

  if (status === 429) {
    const cap = freePreviewCapSchema.safeParse(body);
    if (cap.success || code === ERROR_CODES.freePreviewCap) {
      const resetAt = cap.success ? cap.data.resetAt : null;
      return new ApiError({
        ...base,
        kind: "budget-exhausted",
        resetAt,
        message: `${defaultMessage("budget-exhausted")} ${resetPhrase(resetAt)}`,
      });
    }
    // RATE_LIMITED, or a 429 of unknown shape (the proxy's sign-in limiter sends `{ detail }`).
    const limited = rateLimitedSchema.safeParse(body);
    return new ApiError({
      ...base,
      kind: "rate-limited",
      message:
        limited.success || text === null
          ? `Too many requests right now. Try again ${waitPhrase(retryAfter)}.`
          : text,
    });
  }

  if (status === 403 && code === TEAM_CODES.roleRequired)
    // The proxy's own sentence says which role may; it is the person's role, not the key.
    return new ApiError({ ...base, kind: "forbidden", message: text ?? ROLE_REQUIRED_MESSAGE });

  const kind = kindOfStatus(status);
  return new ApiError({ ...base, kind, message: text ?? defaultMessage(kind) });
}

/** Reads an error answer's body (JSON when it is JSON, otherwise its text) and maps it. */
export async function apiErrorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    const raw = await response.text();
    if (raw !== "") {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
  } catch {
    // The body could not be read (connection dropped mid-answer): the status still says enough.
  }
  return apiErrorFromAnswer(response.status, body, response.headers);
}

/** True for the error a cancelled request rejects with (React Query cancels on unmount). */
export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/**
 * Any failure of a request, as an ApiError: ky's HTTPError (answered, not 2xx), TimeoutError, a
 * fetch TypeError (no answer at all), or anything else.
 */
export async function toApiError(error: unknown): Promise<ApiError> {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPError) return apiErrorFromResponse(error.response);
  if (error instanceof TimeoutError)
    return new ApiError({ kind: "timeout", status: 0, message: DEFAULT_MESSAGES.timeout });
  if (error instanceof TypeError)
    return new ApiError({ kind: "network", status: 0, message: DEFAULT_MESSAGES.network });
  const message = error instanceof Error && error.message ? error.message : DEFAULT_MESSAGES.other;
  return new ApiError({ kind: "other", status: 0, message });
}
