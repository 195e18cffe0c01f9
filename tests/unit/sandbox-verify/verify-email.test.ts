import { describe, expect, it, vi } from "vitest";
import { DISPOSABLE_DOMAINS, isDisposableDomain } from "../../../src/sandbox/verify/disposable-domains";
import { FREE_MAIL_PROVIDERS, ROLE_LOCAL_PARTS } from "../../../src/sandbox/verify/mailbox-lists";
import {
  type AddressBook,
  type Deliverability,
  isDefinite,
  REASON_TEXT,
  REASON_VERDICT,
  type Risk,
  toV1Result,
  toV2Status,
  VERIFY_REASONS,
  type VerifyReason,
  v2Metadata,
  verifyEmail,
} from "../../../src/sandbox/verify/verify-email";
import { asyncBook, syncBook } from "./fixtures";

type Expected = [
  email: string,
  deliverability: Deliverability,
  risk: Risk,
  role: boolean,
  reason: VerifyReason,
];

const RULE_CASES: Expected[] = [
  // In the dataset: the only DELIVERABLE.
  ["jane.doe@acme-robotics.com", "DELIVERABLE", "LOW", false, "known_address"],
  ["Jane.Doe@ACME-Robotics.COM", "DELIVERABLE", "LOW", false, "known_address"],
  ["o'brien@northwind.io", "DELIVERABLE", "LOW", false, "known_address"],
  ["info@acme-robotics.com", "DELIVERABLE", "MEDIUM", true, "known_address"],
  ["rare.person@gmail.com", "DELIVERABLE", "LOW", false, "known_address"],
  // A dataset domain, an address it does not have: a guess.
  ["john.smith@acme-robotics.com", "UNKNOWN", "HIGH", false, "unknown_mailbox_at_known_domain"],
  ["sales@acme-robotics.com", "UNKNOWN", "HIGH", true, "unknown_mailbox_at_known_domain"],
  ["jane.doe+news@acme-robotics.com", "UNKNOWN", "HIGH", false, "unknown_mailbox_at_known_domain"],
  // Free mail.
  ["someone@gmail.com", "UNKNOWN", "MEDIUM", false, "free_provider_unverifiable"],
  ["Someone@Outlook.com", "UNKNOWN", "MEDIUM", false, "free_provider_unverifiable"],
  ["support@yahoo.co.uk", "UNKNOWN", "MEDIUM", true, "free_provider_unverifiable"],
  ["me@proton.me", "UNKNOWN", "MEDIUM", false, "free_provider_unverifiable"],
  ["ich@gmx.de", "UNKNOWN", "MEDIUM", false, "free_provider_unverifiable"],
  // Disposable, subdomains included.
  ["x@mailinator.com", "UNKNOWN", "HIGH", false, "disposable"],
  ["X@YOPMAIL.COM", "UNKNOWN", "HIGH", false, "disposable"],
  ["me@alias.33mail.com", "UNKNOWN", "HIGH", false, "disposable"],
  ["a@guerrillamail.com", "UNKNOWN", "HIGH", false, "disposable"],
  ["a@10minutemail.com", "UNKNOWN", "HIGH", false, "disposable"],
  ["info@trashmail.com", "UNKNOWN", "HIGH", true, "disposable"],
  // Unknown domain.
  ["person@some-startup.io", "UNKNOWN", "MEDIUM", false, "unknown_domain"],
  ["hello@some-startup.io", "UNKNOWN", "MEDIUM", true, "unknown_domain"],
  ["a@mail.acme-robotics.com", "UNKNOWN", "MEDIUM", false, "unknown_domain"],
  // Reserved names (RFC 2606 / 6761 / 6762 / 7686 / 8375), subdomains included.
  ["a@example.com", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@EXAMPLE.NET", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@mail.example.org", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["admin@example.com", "UNDELIVERABLE", "HIGH", true, "reserved_domain"],
  ["a@shop.test", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@host.invalid", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@box.localhost", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@site.example", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@printer.local", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  ["a@router.home.arpa", "UNDELIVERABLE", "HIGH", false, "reserved_domain"],
  // Not reserved, just similar.
  ["a@example.co", "UNKNOWN", "MEDIUM", false, "unknown_domain"],
  ["a@myexample.com", "UNKNOWN", "MEDIUM", false, "unknown_domain"],
  ["a@testing.com", "UNKNOWN", "MEDIUM", false, "unknown_domain"],
];

describe("verifyEmail: one rule per reason", () => {
  it.each(RULE_CASES)("%s -> %s %s role=%s (%s)", async (email, deliverability, risk, role, reason) => {
    const result = await verifyEmail(email, syncBook);
    expect(result).toMatchObject({ email, deliverability, risk, role, reason });
  });

  it("covers every reason in the table above or in the syntax tables", () => {
    const covered = new Set<VerifyReason>([...RULE_CASES.map((c) => c[4]), "invalid_syntax", "too_long"]);
    expect([...covered].sort()).toEqual([...VERIFY_REASONS].sort());
  });
});

describe("verifyEmail: syntax", () => {
  const INVALID = [
    "",
    "   ",
    "plainaddress",
    "a@@b.com",
    "a@b@c.com",
    "@b.com",
    "a@",
    "@",
    ".a@b.com",
    "a.@b.com",
    "a..b@b.com",
    "a b@c.com",
    "a\n@b.com",
    "a(b)@c.com",
    "a,b@c.com",
    "a;b@c.com",
    "a\\b@c.com",
    '"john doe"@b.com',
    "a@b",
    "a@localhost",
    "a@-b.com",
    "a@b-.com",
    "a@b..com",
    "a@.b.com",
    "a@b.com.",
    "a@b.c",
    "a@b.c0m",
    "a@b.123",
    "a@127.0.0.1",
    "a@[127.0.0.1]",
    "a@b_c.com",
    "a@b c.com",
    "a@b\tc.com",
    "a@bü\tcher.de",
    "😀@b.com",
    "a\u0000b@c.com",
    "a@b.com\u0000",
  ];
  it.each(INVALID.map((email) => [JSON.stringify(email), email]))(
    "%s is invalid_syntax, UNDELIVERABLE, HIGH",
    async (_, email) => {
      const result = await verifyEmail(email, syncBook);
      expect(result).toMatchObject({
        deliverability: "UNDELIVERABLE",
        risk: "HIGH",
        role: false,
        reason: "invalid_syntax",
      });
    },
  );

  const VALID = [
    "a@b.co",
    "first.last@some-startup.io",
    "o'brien+tag@some-startup.io",
    "!#$%&'*+/=?^_`{|}~-@some-startup.io",
    "1234@9some-startup.io",
    "a@sub-domain.some-startup.io",
    "a@xn--bcher-kva.de",
    "a@b.xn--p1ai",
  ];
  it.each(VALID)("%s passes the syntax check", async (email) => {
    const result = await verifyEmail(email, syncBook);
    expect(result.reason).not.toBe("invalid_syntax");
    expect(result.reason).not.toBe("too_long");
  });

  it("trims surrounding whitespace and echoes the address as given otherwise", async () => {
    const result = await verifyEmail(" \t Jane.Doe@ACME-Robotics.com \r\n", syncBook);
    expect(result).toMatchObject({
      email: "Jane.Doe@ACME-Robotics.com",
      deliverability: "DELIVERABLE",
      domain: "acme-robotics.com",
    });
  });

  it("asks the dataset with the lower-case address", async () => {
    const isKnownAddress = vi.fn((_: string) => false);
    const book: AddressBook = { isKnownAddress, isDatasetDomain: () => false };
    await verifyEmail("Jane.DOE@Acme-Robotics.Com", book);
    expect(isKnownAddress).toHaveBeenCalledWith("jane.doe@acme-robotics.com");
  });

  it("does not consult the dataset for a malformed address", async () => {
    const isKnownAddress = vi.fn((_: string) => true);
    const result = await verifyEmail("jane.doe@@acme-robotics.com", {
      isKnownAddress,
      isDatasetDomain: () => true,
    });
    expect(result.reason).toBe("invalid_syntax");
    expect(isKnownAddress).not.toHaveBeenCalled();
  });
});

describe("verifyEmail: length limits", () => {
  // 63 + 1 + 63 + 1 + n + 4 characters of domain.
  const domainOf = (lastLabel: number) => `${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(lastLabel)}.com`;
  const LENGTH_CASES: [name: string, email: string, reason: VerifyReason | "ok"][] = [
    ["local part of 64", `${"a".repeat(64)}@some-startup.io`, "ok"],
    ["local part of 65", `${"a".repeat(65)}@some-startup.io`, "too_long"],
    ["254 in all", `${"a".repeat(64)}@${domainOf(57)}`, "ok"],
    ["255 in all", `${"a".repeat(64)}@${domainOf(58)}`, "too_long"],
    ["a label of 63", `a@${"x".repeat(63)}.com`, "ok"],
    ["a label of 64", `a@${"x".repeat(64)}.com`, "too_long"],
    ["a TLD of 63", `a@b.${"x".repeat(63)}`, "ok"],
    ["a TLD of 64", `a@b.${"x".repeat(64)}`, "too_long"],
    ["32 two-octet characters (64 octets)", `${"é".repeat(32)}@some-startup.io`, "ok"],
    ["33 two-octet characters (66 octets)", `${"é".repeat(33)}@some-startup.io`, "too_long"],
    ["a megabyte of anything", "x".repeat(1_000_000), "too_long"],
    ["300 characters of junk with an @", `${"(".repeat(150)}@${")".repeat(149)}`, "too_long"],
    // Bad characters win over length when the whole is short enough.
    ["a 65-long local part with a space", `${"a".repeat(64)} @some-startup.io`, "invalid_syntax"],
  ];

  it("builds the edge addresses at the lengths it claims", () => {
    expect(`${"a".repeat(64)}@${domainOf(57)}`).toHaveLength(254);
    expect(`${"a".repeat(64)}@${domainOf(58)}`).toHaveLength(255);
  });

  it.each(LENGTH_CASES)("%s -> %s", async (_, email, expected) => {
    const result = await verifyEmail(email, syncBook);
    if (expected === "ok") {
      expect(result.reason).toBe("unknown_domain");
    } else {
      expect(result).toMatchObject({ reason: expected, deliverability: "UNDELIVERABLE", risk: "HIGH" });
    }
  });
});

describe("verifyEmail: internationalised addresses (accepted, domain checked in its ASCII form)", () => {
  const IDN_CASES: [email: string, reason: VerifyReason, domain: string | null][] = [
    ["user@bücher.de", "unknown_domain", "xn--bcher-kva.de"],
    ["user@BÜCHER.de", "unknown_domain", "xn--bcher-kva.de"],
    ["用户@例子.广告", "unknown_domain", "xn--fsqu00a.xn--4rr70v"],
    ["josé@acme-robotics.com", "unknown_mailbox_at_known_domain", "acme-robotics.com"],
    ["Jürgen.Müller@some-startup.io", "unknown_domain", "some-startup.io"],
    // Full-width letters map to ASCII under IDNA, so this is example.com.
    ["user@ｅｘａｍｐｌｅ.com", "reserved_domain", "example.com"],
    ["user@例子.test", "reserved_domain", "xn--fsqu00a.test"],
    ["user@bücher..de", "invalid_syntax", "bücher..de"],
    ["user@-bücher.de", "invalid_syntax", "-bücher.de"],
    ["user@bücher.de😀", "invalid_syntax", "bücher.de😀"],
  ];
  it.each(IDN_CASES)("%s -> %s (domain %s)", async (email, reason, domain) => {
    const result = await verifyEmail(email, syncBook);
    expect(result).toMatchObject({ reason, domain });
  });

  it("never gives a definite answer for a mailbox the sandbox cannot know", async () => {
    for (const email of ["用户@例子.广告", "josé@acme-robotics.com", "user@bücher.de"]) {
      expect(isDefinite((await verifyEmail(email, syncBook)).deliverability)).toBe(false);
    }
  });
});

describe("verifyEmail: role accounts", () => {
  it.each([
    "info",
    "support",
    "admin",
    "sales",
    "contact",
    "hello",
    "help",
    "billing",
    "marketing",
    "noreply",
    "no-reply",
    "postmaster",
    "abuse",
    "webmaster",
    "office",
    "team",
    "careers",
    "jobs",
    "hr",
    "press",
    "security",
    "privacy",
    "legal",
    "INFO",
    "Support+EU",
  ])("%s@ is a role account, never LOW risk", async (local) => {
    const result = await verifyEmail(`${local}@some-startup.io`, syncBook);
    expect(result.role).toBe(true);
    expect(result.risk).not.toBe("LOW");
  });

  it.each(["jane", "information", "salesforce.admin", "info.jane", "supporter"])(
    "%s@ is not a role account",
    async (local) => {
      expect((await verifyEmail(`${local}@some-startup.io`, syncBook)).role).toBe(false);
    },
  );

  it("has a list of about forty or more role names, all lower case", () => {
    expect(ROLE_LOCAL_PARTS.size).toBeGreaterThanOrEqual(40);
    for (const name of ROLE_LOCAL_PARTS) expect(name).toBe(name.toLowerCase());
  });
});

describe("static lists", () => {
  it("lists at least 150 disposable domains, each a well-formed lower-case domain", () => {
    expect(DISPOSABLE_DOMAINS.size).toBeGreaterThanOrEqual(150);
    for (const domain of DISPOSABLE_DOMAINS) {
      expect(domain).toMatch(/^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/);
    }
  });

  it("keeps disposable and free-mail lists apart", () => {
    for (const domain of FREE_MAIL_PROVIDERS.keys()) expect(isDisposableDomain(domain)).toBe(false);
  });

  it("matches disposable subdomains but not look-alikes", () => {
    expect(isDisposableDomain("deep.sub.mailinator.com")).toBe(true);
    expect(isDisposableDomain("notmailinator.com")).toBe(true); // itself a listed Mailinator domain
    expect(isDisposableDomain("mailinator.com.evil.io")).toBe(false);
    expect(isDisposableDomain("xmailinator.com")).toBe(false);
  });
});

describe("determinism", () => {
  const ALL = [...RULE_CASES.map((c) => c[0]), "bad@@x", `${"a".repeat(65)}@x.io`, "用户@例子.广告"];

  it("answers the same twice, and the same with a sync or an async dataset", async () => {
    for (const email of ALL) {
      const first = await verifyEmail(email, syncBook);
      expect(await verifyEmail(email, syncBook)).toEqual(first);
      expect(await verifyEmail(email, asyncBook)).toEqual(first);
    }
  });

  it("gives the same metadata for the same result and timestamp", async () => {
    for (const email of ALL) {
      const result = await verifyEmail(email, syncBook);
      expect(v2Metadata(result, "2026-01-01T00:00:00Z")).toEqual(v2Metadata(result, "2026-01-01T00:00:00Z"));
    }
  });
});

describe("v2 mapping and credits", () => {
  it.each([
    ["DELIVERABLE", "Valid", true],
    ["UNDELIVERABLE", "Invalid", true],
    ["UNKNOWN", "Unknown", false],
  ] as const)("%s -> %s, definite (1 credit): %s", (deliverability, status, definite) => {
    expect(toV2Status(deliverability)).toBe(status);
    expect(isDefinite(deliverability)).toBe(definite);
  });

  it.each([
    ["known_address", true],
    ["reserved_domain", true],
    ["invalid_syntax", true],
    ["too_long", true],
    ["unknown_mailbox_at_known_domain", false],
    ["free_provider_unverifiable", false],
    ["disposable", false],
    ["unknown_domain", false],
  ] as const)("%s costs a credit: %s", (reason, charged) => {
    expect(isDefinite(REASON_VERDICT[reason].deliverability)).toBe(charged);
  });

  it("toV1Result keeps exactly the documented four fields", async () => {
    const result = await verifyEmail("jane.doe@acme-robotics.com", syncBook);
    expect(toV1Result(result)).toStrictEqual({
      email: "jane.doe@acme-robotics.com",
      deliverability: "DELIVERABLE",
      role: false,
      risk: "LOW",
    });
  });
});

describe("REASON_TEXT", () => {
  it.each(VERIFY_REASONS)("%s has one plain sentence", (reason) => {
    const text = REASON_TEXT[reason];
    expect(text).toMatch(/^[A-Z].*\.$/);
    expect(text.split(/\.\s/)).toHaveLength(1);
  });
});

describe("v2Metadata (?metadata=true)", () => {
  it.each([
    ["jane.doe@acme-robotics.com", "acme-robotics.com", true, "known_offline", "Unknown", null],
    [
      "guess@acme-robotics.com",
      "acme-robotics.com",
      true,
      "known_offline",
      "Unknown",
      "unknown_mailbox_at_known_domain",
    ],
    ["someone@gmail.com", "gmail.com", true, "known_offline", "Google", "free_provider_unverifiable"],
    ["someone@hotmail.com", "hotmail.com", true, "known_offline", "Microsoft", "free_provider_unverifiable"],
    ["x@mailinator.com", "mailinator.com", true, "known_offline", "Unknown", "disposable"],
    ["x@example.com", "example.com", false, "known_offline", "Unknown", "reserved_domain"],
    ["x@some-startup.io", "some-startup.io", null, "not_checked", "Unknown", "unknown_domain"],
    ["not an address", null, null, "not_checked", "Unknown", "invalid_syntax"],
    ["a..b@Gmail.com", "gmail.com", null, "not_checked", "Google", "invalid_syntax"],
    [`${"a".repeat(65)}@some-startup.io`, "some-startup.io", null, "not_checked", "Unknown", "too_long"],
  ] as const)("%s", async (email, domain, mxPresent, mxChecked, provider, reason) => {
    const result = await verifyEmail(email, syncBook);
    expect(v2Metadata(result)).toStrictEqual({
      domain,
      mx_record_present: mxPresent,
      mx_record_checked: mxChecked,
      email_provider: provider,
      security_gateway: null,
      reason,
    });
  });

  it("adds the caller's timestamp only when given", async () => {
    const result = await verifyEmail("someone@gmail.com", syncBook);
    expect(v2Metadata(result, "2024-01-15T10:30:00")).toMatchObject({ timestamp: "2024-01-15T10:30:00" });
    expect(v2Metadata(result)).not.toHaveProperty("timestamp");
  });
});
