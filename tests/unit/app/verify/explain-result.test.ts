import { describe, expect, it } from "vitest";
import { explainVerification, humanise } from "../../../../src/app/features/verify/explain-result";

describe("v2 results", () => {
  it("Valid: good, 1 credit, the metadata as facts", () => {
    const e = explainVerification({
      generation: "v2",
      result: {
        email: "jane@acme.com",
        status: "Valid",
        domain: "acme.com",
        timestamp: "2026-03-01T10:00:00.000Z",
        mx_record_present: true,
        mx_record_checked: "known_offline",
        email_provider: "Google",
        security_gateway: null,
        reason: null,
      },
    });
    expect(e).toMatchObject({ verdict: "Valid", tone: "good", credits: 1, generation: "v2" });
    expect(e.summary).toMatch(/delivered/);
    expect(e.costNote).toMatch(/definite answer is charged/);
    const facts = Object.fromEntries(e.facts.map((f) => [f.label, f.value]));
    expect(facts).toMatchObject({
      Domain: "acme.com",
      "Mail servers": expect.stringMatching(/^Yes/),
      "Email provider": "Google",
      Checked: expect.stringMatching(/2026/),
    });
    expect(facts.Reason).toBeUndefined();
    expect(facts["Security gateway"]).toBeUndefined();
  });

  it("Invalid: bad, 1 credit, the reason in words, no mail servers", () => {
    const e = explainVerification({
      generation: "v2",
      result: {
        email: "info@example.com",
        status: "Invalid",
        domain: "example.com",
        mx_record_present: false,
        email_provider: "Unknown",
        reason: "reserved_domain",
      },
    });
    expect(e).toMatchObject({ verdict: "Invalid", tone: "bad", credits: 1 });
    const facts = Object.fromEntries(e.facts.map((f) => [f.label, f.value]));
    expect(facts.Reason).toMatch(/reserved for examples/);
    expect(facts["Mail servers"]).toMatch(/^No/);
    expect(facts["Email provider"]).toBe("Not identified");
  });

  it("Unknown: unsure and free; MX not known is said so", () => {
    const e = explainVerification({
      generation: "v2",
      result: { email: "a@zz.com", status: "Unknown", mx_record_present: null, reason: "unknown_domain" },
    });
    expect(e).toMatchObject({ verdict: "Unknown", tone: "unsure", credits: 0 });
    expect(e.costNote).toMatch(/free/);
    expect(e.facts.find((f) => f.label === "Mail servers")?.value).toMatch(/Not checked/);
  });

  it("disposable and role flags, when the service sends them, are explained", () => {
    const e = explainVerification({
      generation: "v2",
      result: {
        email: "sales@temp.io",
        status: "Unknown",
        disposable: true,
        role: true,
        reason: "mailbox_full",
      },
    });
    const facts = Object.fromEntries(e.facts.map((f) => [f.label, f.value]));
    expect(facts.Disposable).toMatch(/temporary-mail/);
    expect(facts["Role address"]).toMatch(/team inbox such as sales@/);
    // A reason the app has no words for is still readable.
    expect(facts.Reason).toBe("Mailbox full");
  });

  it("without metadata: the status alone", () => {
    const e = explainVerification({ generation: "v2", result: { email: "a@b.com", status: "Valid" } });
    expect(e.facts).toEqual([]);
  });
});

describe("v1 results: deliverability, role, risk", () => {
  it("DELIVERABLE, personal, LOW", () => {
    const e = explainVerification({
      generation: "v1",
      result: { email: "jane@acme.com", deliverability: "DELIVERABLE", role: false, risk: "LOW" },
    });
    expect(e).toMatchObject({ verdict: "Deliverable", tone: "good", credits: 1, generation: "v1" });
    expect(e.facts).toEqual([
      { label: "Deliverability", value: "DELIVERABLE" },
      { label: "Role address", value: "Personal address: reaches one person." },
      { label: "Risk", value: "Risk LOW: the high-confidence set; safe to send." },
    ]);
  });

  it("role account, HIGH risk, UNDELIVERABLE", () => {
    const e = explainVerification({
      generation: "v1",
      result: { email: "sales@example.com", deliverability: "UNDELIVERABLE", role: true, risk: "HIGH" },
    });
    expect(e).toMatchObject({ verdict: "Undeliverable", tone: "bad", credits: 1 });
    expect(e.facts[1]!.value).toMatch(/^Role address: goes to a team inbox such as sales@/);
    expect(e.facts[2]!.value).toBe("Risk HIGH: likely to bounce or be a trap; do not send.");
  });

  it("UNKNOWN costs nothing; MEDIUM risk explained", () => {
    const e = explainVerification({
      generation: "v1",
      result: { email: "a@gmail.com", deliverability: "UNKNOWN", role: false, risk: "MEDIUM" },
    });
    expect(e).toMatchObject({ verdict: "Unknown", tone: "unsure", credits: 0 });
    expect(e.facts[2]!.value).toMatch(/^Risk MEDIUM/);
  });
});

describe("humanise", () => {
  it("turns codes into words", () => {
    expect(humanise("no_mx-record")).toBe("No mx record");
    expect(humanise("_")).toBe("_");
  });
});
