import { PRICE } from "../../../contract/inferred";
import { formatDateTime } from "../../lib/format";
import type { Verification } from "./verify-email";

/**
 * A verification result in plain words: a verdict (one word and a sentence saying what to do),
 * the facts behind it, and what it cost. Pure, so every wording is unit-tested.
 */
export type Tone = "good" | "bad" | "unsure";

export interface Fact {
  label: string;
  value: string;
  /** A sentence explaining the value, when it needs one. */
  note?: string;
}

export interface Explanation {
  email: string;
  verdict: string;
  tone: Tone;
  summary: string;
  facts: Fact[];
  /** Credits this answer cost: one for a definite answer, none for an unknown one. */
  credits: number;
  costNote: string;
  generation: "v1" | "v2";
}

const COST_DEFINITE = PRICE.perDefiniteVerification;

function cost(definite: boolean): Pick<Explanation, "credits" | "costNote"> {
  return definite
    ? {
        credits: COST_DEFINITE,
        costNote: `${COST_DEFINITE} credit: a definite answer is charged.`,
      }
    : { credits: 0, costNote: "No credit: an unknown answer is free." };
}

// ---------------------------------------------------------------------------------------- v2

const V2_STATUS: Record<string, { verdict: string; tone: Tone; summary: string; definite: boolean }> = {
  Valid: {
    verdict: "Valid",
    tone: "good",
    summary: "Mail to this address is delivered. It is safe to send to.",
    definite: true,
  },
  Invalid: {
    verdict: "Invalid",
    tone: "bad",
    summary: "This address cannot receive mail. Remove it from your list: sending to it bounces.",
    definite: true,
  },
  Unknown: {
    verdict: "Unknown",
    tone: "unsure",
    summary: "The service could not confirm this address either way. Send with care, or leave it out.",
    definite: false,
  },
};

/** Reasons the service gives (v2 metadata `reason`), in plain words. */
export const REASON_WORDS: Record<string, string> = {
  known_address: "The mailbox is known to exist.",
  unknown_mailbox_at_known_domain:
    "The company's domain is real, but this mailbox is not known there: it may be a guess that bounces.",
  free_provider_unverifiable:
    "Free-mail providers (Gmail, Outlook…) do not let anyone confirm a mailbox from outside.",
  disposable: "A throwaway address from a temporary-mail service: it will not last.",
  unknown_domain: "The domain is not known, so the mailbox could not be checked.",
  reserved_domain: "The domain is reserved for examples and testing; it never receives mail.",
  invalid_syntax: "This is not a well-formed email address.",
  too_long: "The address, or a part of it, is longer than email allows.",
};

/** `mailbox_full` -> `Mailbox full`: a reason the app has no words for is still readable. */
export function humanise(code: string): string {
  const text = code.replace(/[_-]+/g, " ").trim();
  return text === "" ? code : text.charAt(0).toUpperCase() + text.slice(1);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function yesNo(value: unknown, yes: string, no: string): string | null {
  if (value === true) return yes;
  if (value === false) return no;
  return null;
}

function explainV2(result: Record<string, unknown> & { email: string; status: string }): Explanation {
  const status = V2_STATUS[result.status] ?? V2_STATUS.Unknown!;
  const facts: Fact[] = [];
  const reason = text(result.reason);
  if (reason) facts.push({ label: "Reason", value: REASON_WORDS[reason] ?? humanise(reason) });
  const domain = text(result.domain);
  if (domain) facts.push({ label: "Domain", value: domain });
  const mx = yesNo(
    result.mx_record_present,
    "Yes: the domain has mail servers (MX records).",
    "No: the domain has no mail servers, so nothing can be delivered.",
  );
  if (mx) facts.push({ label: "Mail servers", value: mx });
  else if ("mx_record_present" in result)
    facts.push({ label: "Mail servers", value: "Not checked: the service could not tell." });
  const provider = text(result.email_provider);
  if (provider)
    facts.push({
      label: "Email provider",
      value: provider === "Unknown" ? "Not identified" : provider,
    });
  const gateway = text(result.security_gateway);
  if (gateway)
    facts.push({
      label: "Security gateway",
      value: gateway,
      note: "A filtering service in front of the mailbox; it may hold or reject cold mail.",
    });
  const disposable = yesNo(
    result.disposable ?? result.is_disposable,
    "Yes: a temporary-mail address that will not last.",
    "No",
  );
  if (disposable) facts.push({ label: "Disposable", value: disposable });
  const role = yesNo(
    result.role ?? result.is_role,
    "Yes: goes to a team inbox such as sales@ or support@; expect fewer replies.",
    "No: reaches one person.",
  );
  if (role) facts.push({ label: "Role address", value: role });
  const checkedAt = text(result.timestamp);
  if (checkedAt) facts.push({ label: "Checked", value: formatDateTime(checkedAt, { seconds: true }) });
  return {
    email: result.email,
    verdict: status.verdict,
    tone: status.tone,
    summary: status.summary,
    facts,
    ...cost(status.definite),
    generation: "v2",
  };
}

// ---------------------------------------------------------------------------------------- v1

const DELIVERABILITY: Record<string, { verdict: string; tone: Tone; summary: string; definite: boolean }> = {
  DELIVERABLE: {
    verdict: "Deliverable",
    tone: "good",
    summary: "Mail to this address is accepted. Use it for outbound sends.",
    definite: true,
  },
  UNDELIVERABLE: {
    verdict: "Undeliverable",
    tone: "bad",
    summary: "Mail to this address bounces. Remove it from your list.",
    definite: true,
  },
  UNKNOWN: {
    verdict: "Unknown",
    tone: "unsure",
    summary: "The service could not tell whether mail is accepted. Send with care, or leave it out.",
    definite: false,
  },
};

export const RISK_WORDS: Record<string, string> = {
  LOW: "Risk LOW: the high-confidence set; safe to send.",
  MEDIUM: "Risk MEDIUM: may bounce or go unread; send with care.",
  HIGH: "Risk HIGH: likely to bounce or be a trap; do not send.",
};

export const ROLE_WORDS = {
  yes: "Role address: goes to a team inbox such as sales@ or support@; expect lower engagement.",
  no: "Personal address: reaches one person.",
} as const;

function explainV1(result: {
  email: string;
  deliverability: string;
  role: boolean;
  risk: string;
}): Explanation {
  const status = DELIVERABILITY[result.deliverability] ?? DELIVERABILITY.UNKNOWN!;
  return {
    email: result.email,
    verdict: status.verdict,
    tone: status.tone,
    summary: status.summary,
    facts: [
      { label: "Deliverability", value: result.deliverability },
      { label: "Role address", value: result.role ? ROLE_WORDS.yes : ROLE_WORDS.no },
      { label: "Risk", value: RISK_WORDS[result.risk] ?? `Risk ${result.risk}` },
    ],
    ...cost(status.definite),
    generation: "v1",
  };
}

export function explainVerification(verification: Verification): Explanation {
  return verification.generation === "v2" ? explainV2(verification.result) : explainV1(verification.result);
}
