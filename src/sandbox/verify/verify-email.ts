/**
 * The sandbox's email verification: offline, deterministic and honest.
 *
 * The live service talks to mail servers; the sandbox never touches the network. So it only answers
 * definitely (DELIVERABLE / UNDELIVERABLE, which cost a credit) when it actually knows: the address
 * is in the synthetic dataset (its ground truth), or the address cannot exist at all (bad syntax, a
 * reserved name). Everything else is UNKNOWN (free) with a reason saying why.
 */
import { domainToASCII, domainToUnicode } from "node:url";
import { domainAndParents, isDisposableDomain } from "./disposable-domains";
import { FREE_MAIL_PROVIDERS, RESERVED_DOMAINS, ROLE_LOCAL_PARTS } from "./mailbox-lists";

/** Answers from the synthetic dataset, injected by the caller. */
export interface AddressBook {
  /** The exact address exists in the dataset. */
  isKnownAddress(lowerCaseEmail: string): boolean | Promise<boolean>;
  /** A company domain of the dataset. */
  isDatasetDomain(lowerCaseDomain: string): boolean;
}

export const DELIVERABILITIES = ["DELIVERABLE", "UNDELIVERABLE", "UNKNOWN"] as const;
export type Deliverability = (typeof DELIVERABILITIES)[number];
export const RISKS = ["LOW", "MEDIUM", "HIGH"] as const;
export type Risk = (typeof RISKS)[number];

/** The documented v1 result, exactly. */
export interface V1Result {
  email: string;
  deliverability: Deliverability;
  role: boolean;
  risk: Risk;
}

export const VERIFY_REASONS = [
  "known_address",
  "unknown_mailbox_at_known_domain",
  "free_provider_unverifiable",
  "disposable",
  "unknown_domain",
  "reserved_domain",
  "invalid_syntax",
  "too_long",
] as const;
export type VerifyReason = (typeof VERIFY_REASONS)[number];

/** One sentence per reason, for people (the UI shows it). */
export const REASON_TEXT: Record<VerifyReason, string> = {
  known_address: "This address exists in the dataset, so mail to it is delivered.",
  unknown_mailbox_at_known_domain:
    "The company's domain is known but this mailbox is not, so the address may be a guess that bounces.",
  free_provider_unverifiable:
    "This is a free-mail provider whose mailboxes cannot be confirmed without contacting it, so the result is unknown.",
  disposable:
    "This is a throwaway address from a temporary-mail service; it may accept mail now but will not last.",
  unknown_domain: "The domain is not one the sandbox knows, so it cannot tell whether the mailbox exists.",
  reserved_domain: "The domain is reserved for examples or testing and can never receive mail.",
  invalid_syntax: "This is not a well-formed email address.",
  too_long: "The address, its mailbox name or part of its domain exceeds the length email allows.",
};

/**
 * What each reason answers. Rationale for the judgement calls:
 * - disposable -> UNKNOWN, HIGH: such mailboxes usually do exist (DELIVERABLE would be defensible), but
 *   they vanish within hours, so calling them deliverable would be a false positive for anyone
 *   building a list, and UNDELIVERABLE would be false today. UNKNOWN is the honest answer; HIGH says
 *   "do not send".
 * - unknown_mailbox_at_known_domain -> UNKNOWN, HIGH: the sandbox knows everyone at the company, so a
 *   missing address is probably a guess; but offline it cannot prove the mailbox absent (the real
 *   domain could accept anything), so it does not charge for a definite UNDELIVERABLE.
 * - free_provider_unverifiable / unknown_domain -> UNKNOWN, MEDIUM: no knowledge either way.
 */
export const REASON_VERDICT: Record<VerifyReason, { deliverability: Deliverability; risk: Risk }> = {
  known_address: { deliverability: "DELIVERABLE", risk: "LOW" },
  unknown_mailbox_at_known_domain: { deliverability: "UNKNOWN", risk: "HIGH" },
  free_provider_unverifiable: { deliverability: "UNKNOWN", risk: "MEDIUM" },
  disposable: { deliverability: "UNKNOWN", risk: "HIGH" },
  unknown_domain: { deliverability: "UNKNOWN", risk: "MEDIUM" },
  reserved_domain: { deliverability: "UNDELIVERABLE", risk: "HIGH" },
  invalid_syntax: { deliverability: "UNDELIVERABLE", risk: "HIGH" },
  too_long: { deliverability: "UNDELIVERABLE", risk: "HIGH" },
};

/** The v1 result plus why, and the domain looked at (ASCII, lower case; null when there is none). */
export type VerifyOutcome = V1Result & { reason: VerifyReason; domain: string | null };

// RFC 5321 limits, in octets: mailbox 254 (path 256 minus the angle brackets), local part 64,
// domain 253 (255 on the wire minus length/root octets), label 63.
const MAX_ADDRESS_OCTETS = 254;
const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

// Dot-atom (RFC 5322) widened by RFC 6531 to letters, marks and digits of any script, so that
// internationalised mailboxes (`josé@…`) are not wrongly declared invalid (which would charge a
// credit for a false UNDELIVERABLE). Quoted local parts and symbols/emoji are outside the subset.
// Atoms never contain a dot, so the pattern cannot backtrack badly.
const LOCAL_ATOM = "[\\p{L}\\p{M}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART_PATTERN = new RegExp(`^${LOCAL_ATOM}(?:\\.${LOCAL_ATOM})*$`, "u");
const DOMAIN_LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// Alphabetic TLDs, or an IDN TLD in its ASCII (punycode) form such as `xn--p1ai`.
const TLD_PATTERN = /^(?:[a-z]{2,}|xn--[a-z0-9-]+)$/;
const NON_ASCII = /[\u0080-\uffff]/g;
// IDNA conversion (WHATWG/UTS 46) is more lenient than IDNA 2008: it lets `-bücher` and emoji
// through. Each label of an internationalised domain must also be letters, marks and digits of any
// script, hyphens inside only.
const UNICODE_LABEL_PATTERN = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
// In an internationalised domain the ASCII characters must still be hostname characters: the IDNA
// conversion would silently drop some (tab, newline), turning junk into a valid-looking domain.
const HOSTNAME_ASCII = /^[A-Za-z0-9.-]*$/;

const utf8 = new TextEncoder();
const octets = (text: string): number => utf8.encode(text).length;

type ParsedAddress =
  | { ok: true; localPart: string; domain: string }
  | { ok: false; reason: "invalid_syntax" | "too_long" };

/**
 * Syntax and length, RFC 5321/5322 practical subset. Length limits are checked only once the
 * characters are fine, so garbage is reported as `invalid_syntax`, not `too_long`; except an address
 * over 254 octets overall, which is `too_long` whatever it contains.
 * An internationalised domain (`bücher.de`) is converted to its ASCII form (`xn--bcher-kva.de`, the
 * form DNS uses) and checked as such; domain and label lengths are measured in that form.
 */
function parseAddress(address: string): ParsedAddress {
  if (address === "") return { ok: false, reason: "invalid_syntax" };
  // UTF-16 length never exceeds the UTF-8 length, so this cheap test is safe before encoding.
  if (address.length > MAX_ADDRESS_OCTETS || octets(address) > MAX_ADDRESS_OCTETS) {
    return { ok: false, reason: "too_long" };
  }
  const parts = address.split("@");
  if (parts.length !== 2) return { ok: false, reason: "invalid_syntax" };
  const [localPart = "", givenDomain = ""] = parts;
  if (!LOCAL_PART_PATTERN.test(localPart)) return { ok: false, reason: "invalid_syntax" };

  const asciiPartOfDomain = givenDomain.replace(NON_ASCII, "");
  if (!HOSTNAME_ASCII.test(asciiPartOfDomain)) return { ok: false, reason: "invalid_syntax" };
  // domainToASCII answers "" for what IDNA rejects; the label checks below then fail.
  const isInternational = asciiPartOfDomain.length !== givenDomain.length;
  const domain = isInternational ? domainToASCII(givenDomain) : givenDomain.toLowerCase();
  const labels = domain.split(".");
  const tld = labels[labels.length - 1] ?? "";
  if (
    labels.length < 2 ||
    !labels.every((label) => DOMAIN_LABEL_PATTERN.test(label)) ||
    !TLD_PATTERN.test(tld) ||
    (isInternational &&
      !domainToUnicode(domain)
        .split(".")
        .every((label) => UNICODE_LABEL_PATTERN.test(label)))
  ) {
    return { ok: false, reason: "invalid_syntax" };
  }
  if (
    octets(localPart) > MAX_LOCAL_OCTETS ||
    domain.length > MAX_DOMAIN_LENGTH ||
    labels.some((label) => label.length > MAX_LABEL_LENGTH)
  ) {
    return { ok: false, reason: "too_long" };
  }
  return { ok: true, localPart, domain };
}

/** True for a reserved name or anything under one. Expects lower case ASCII. */
export function isReservedDomain(domain: string): boolean {
  return domainAndParents(domain).some((candidate) => RESERVED_DOMAINS.has(candidate));
}

/** A role mailbox (`info@`, `support+eu@`…). Expects lower case. */
export function isRoleLocalPart(lowerCaseLocalPart: string): boolean {
  const withoutTag = lowerCaseLocalPart.split("+", 1)[0] ?? "";
  return ROLE_LOCAL_PARTS.has(withoutTag);
}

/**
 * Which rule applies. The dataset is the sandbox's ground truth, so it is asked first: were a
 * synthetic company to sit on a reserved or free-mail domain, the dataset would still win.
 */
async function classify(localPart: string, domain: string, book: AddressBook): Promise<VerifyReason> {
  if (await book.isKnownAddress(`${localPart.toLowerCase()}@${domain}`)) return "known_address";
  if (book.isDatasetDomain(domain)) return "unknown_mailbox_at_known_domain";
  if (isReservedDomain(domain)) return "reserved_domain";
  if (isDisposableDomain(domain)) return "disposable";
  if (FREE_MAIL_PROVIDERS.has(domain)) return "free_provider_unverifiable";
  return "unknown_domain";
}

/**
 * Verifies one address. `email` is echoed as given, surrounding whitespace removed; comparisons are
 * case-insensitive. Same input and same dataset, same answer.
 */
export async function verifyEmail(email: string, book: AddressBook): Promise<VerifyOutcome> {
  const address = email.trim();
  const parsed = parseAddress(address);
  if (!parsed.ok) {
    const afterLastAt = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
    const domain = address.includes("@") && afterLastAt !== "" ? afterLastAt : null;
    return { email: address, ...REASON_VERDICT[parsed.reason], role: false, reason: parsed.reason, domain };
  }
  const reason = await classify(parsed.localPart, parsed.domain, book);
  const role = isRoleLocalPart(parsed.localPart.toLowerCase());
  const { deliverability, risk } = REASON_VERDICT[reason];
  // Role accounts engage poorly and attract complaints: never LOW.
  const roleAwareRisk: Risk = role && risk === "LOW" ? "MEDIUM" : risk;
  return { email: address, deliverability, role, risk: roleAwareRisk, reason, domain: parsed.domain };
}

/** Just the documented four fields, for the v1 body (keeps `reason` and `domain` out of it). */
export function toV1Result(outcome: V1Result): V1Result {
  return {
    email: outcome.email,
    deliverability: outcome.deliverability,
    role: outcome.role,
    risk: outcome.risk,
  };
}

export type V2Status = "Valid" | "Invalid" | "Unknown";

const V2_STATUS: Record<Deliverability, V2Status> = {
  DELIVERABLE: "Valid",
  UNDELIVERABLE: "Invalid",
  UNKNOWN: "Unknown",
};

export function toV2Status(deliverability: Deliverability): V2Status {
  return V2_STATUS[deliverability];
}

/** Definite answers cost 1 credit (v1 DELIVERABLE/UNDELIVERABLE, v2 Valid/Invalid); UNKNOWN is free. */
export function isDefinite(deliverability: Deliverability): boolean {
  return deliverability !== "UNKNOWN";
}

/**
 * `mx_record_checked` values. The sandbox never queries DNS, so it does not claim "checked":
 * `known_offline` means the MX answer comes from what the sandbox knows (the dataset's domains exist,
 * the free-mail and disposable services receive mail, reserved names cannot); `not_checked` means it
 * has no basis to say (unknown domain, or no valid domain at all).
 */
export type MxRecordChecked = "known_offline" | "not_checked";

/**
 * The `?metadata=true` fields. The OpenAPI only describes them in prose ("MX record presence, email
 * provider, security gateway, and failure reason"); the names are those of the public v2 docs'
 * example: `domain, timestamp, mx_record_present, mx_record_checked, email_provider,
 * security_gateway, reason`.
 */
export interface V2Metadata {
  domain: string | null;
  /** Passed in by the caller (the only non-deterministic field); omitted when not given. */
  timestamp?: string;
  /** null when the sandbox cannot know (see `MxRecordChecked`). */
  mx_record_present: boolean | null;
  mx_record_checked: MxRecordChecked;
  /** `Google`, `Microsoft`…, or `Unknown` (as the docs spell it). */
  email_provider: string;
  /** Gateway detection needs the network: always null here. */
  security_gateway: null;
  /** Why the status is Invalid or Unknown; null for Valid, as in the docs. */
  reason: VerifyReason | null;
}

const MX_PRESENT: Record<VerifyReason, boolean | null> = {
  known_address: true,
  unknown_mailbox_at_known_domain: true,
  free_provider_unverifiable: true,
  disposable: true,
  reserved_domain: false,
  unknown_domain: null,
  invalid_syntax: null,
  too_long: null,
};

export function v2Metadata(outcome: VerifyOutcome, timestamp?: string): V2Metadata {
  const mxPresent = MX_PRESENT[outcome.reason];
  return {
    domain: outcome.domain,
    ...(timestamp === undefined ? {} : { timestamp }),
    mx_record_present: mxPresent,
    mx_record_checked: mxPresent === null ? "not_checked" : "known_offline",
    email_provider: (outcome.domain !== null && FREE_MAIL_PROVIDERS.get(outcome.domain)) || "Unknown",
    security_gateway: null,
    reason: outcome.deliverability === "DELIVERABLE" ? null : outcome.reason,
  };
}
