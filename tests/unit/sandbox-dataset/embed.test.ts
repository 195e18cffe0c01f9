import { describe, expect, it } from "vitest";
import {
  analyzeTitle,
  cosineDistance,
  embedCompanyText,
  embedTitle,
  hash32,
  titleTokens,
  VECTOR_DIMS,
} from "../../../src/sandbox/dataset/embed";
import { DATASET_VERSION } from "../../../src/sandbox/dataset/index";

const titleDistance = (a: string, b: string) => cosineDistance(embedTitle(a), embedTitle(b));
const textDistance = (a: string, b: string) => cosineDistance(embedCompanyText(a), embedCompanyText(b));
const length = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe("hash32", () => {
  it("is fixed: changing it changes every stored vector (bump DATASET_VERSION)", () => {
    expect([hash32("abc"), hash32("w:security"), hash32("abc", 1)]).toEqual([
      2159798908, 2296640792, 4033487198,
    ]);
  });
});

describe("cosineDistance", () => {
  it("is 0 for a vector and itself, 1 against a zero vector, 2 against its opposite", () => {
    const v = embedTitle("Software Engineer");
    expect(cosineDistance(v, v)).toBeCloseTo(0, 6);
    expect(cosineDistance(v, new Float32Array(VECTOR_DIMS))).toBe(1);
    expect(
      cosineDistance(
        v,
        v.map((x) => -x),
      ),
    ).toBeCloseTo(2, 6);
  });
});

describe("embedTitle", () => {
  it("returns unit vectors of VECTOR_DIMS dimensions, deterministically", () => {
    for (const title of ["CEO", "Senior Software Engineer", "Directora de Marketing", "x"]) {
      const v = embedTitle(title);
      expect(v).toHaveLength(VECTOR_DIMS);
      expect(length(v)).toBeCloseTo(1, 5);
      expect(embedTitle(title)).toEqual(v);
    }
  });

  it("ignores case, accents and punctuation", () => {
    expect(titleDistance("Marketing Manager", "  marketing-MANAGER!! ")).toBeCloseTo(0, 6);
    expect(titleDistance("Sales Director", "sales, director")).toBeCloseTo(0, 6);
    expect(titleDistance("Directeur Général", "directeur general")).toBeCloseTo(0, 6);
  });

  // The pairs the sandbox's match levels rely on (same <= 0.10, similar <= 0.25, related <= 0.40,
  // broad <= 0.55), each with some margin.
  it.each([
    ["CMO", "Chief Marketing Officer", 0.1],
    ["Marketing Manager", "Marketing Mgr", 0.1],
    ["Sales Director", "Director of Sales", 0.1],
    ["Chief Executive Officer", "CEO", 0.1],
    ["Software Engineer", "SWE", 0.1],
    ["Sales Development Representative", "SDR", 0.1],
    ["HR Manager", "Human Resources Manager", 0.1],
    ["VP Marketing", "Head of Marketing", 0.2],
    ["VP Marketing", "Vice President, Marketing", 0.1],
    ["VP Marketing", "Marketing Director", 0.25],
    ["CFO", "Head of Finance", 0.25],
    ["Recruiter", "Senior Recruiter", 0.25],
    ["Marketing Manager", "Digital Marketing Manager", 0.2],
    ["Software Engineer", "Software Developer", 0.2],
    ["Software Engineer", "Backend Engineer", 0.2],
    ["Chief Executive Officer", "Founder & CEO", 0.2],
    ["Chief Executive Officer", "President & CEO", 0.2],
    ["Sales Director", "Regional Sales Director", 0.2],
    ["Marketing Manager", "Marketing Director", 0.35],
    ["Sales Director", "Sales Manager", 0.35],
    ["Software Engineer", "Senior Software Engineer", 0.25],
  ])("%s ~ %s within %d", (a, b, ceiling) => {
    expect(titleDistance(a, b)).toBeLessThanOrEqual(ceiling);
  });

  it.each([
    ["Marketing Manager", "Software Engineer", 0.55],
    ["Chief Executive Officer", "Registered Nurse", 0.55],
    ["Sales Director", "Data Scientist", 0.55],
    ["Marketing Manager", "Sales Manager", 0.25],
    ["Chief Marketing Officer", "Chief Financial Officer", 0.25],
    ["Marketing Manager", "Marketing Intern", 0.4],
    // The default level matches on the function before the seniority: a title of the same level
    // but another function, or of no function, is not `similar`.
    ["VP Marketing", "Vice President", 0.25],
    ["VP Marketing", "Executive Vice President", 0.25],
    ["VP Marketing", "VP Sales", 0.25],
    ["Marketing Manager", "Sales Manager", 0.4],
    // "implementation" once shared a hashed coordinate with the marketing function.
    ["VP Marketing", "VP of Implementation", 0.25],
    // Seniority still tells titles apart: not the `same` title.
    ["Software Engineer", "Senior Software Engineer", 0.1],
    ["Software Engineer", "Software Engineer Intern", 0.1],
  ])("%s vs %s: farther than %s", (a, b, floor) => {
    expect(titleDistance(a, b)).toBeGreaterThan(floor);
  });

  it("puts the function before the seniority", () => {
    const vp = "VP Marketing";
    const sameFunction = titleDistance(vp, "Marketing Director");
    expect(sameFunction).toBeLessThan(titleDistance(vp, "Vice President"));
    expect(sameFunction).toBeLessThan(titleDistance(vp, "VP Sales"));
    // A title naming no level counts as an individual contributor's.
    expect(titleDistance("Recruiter", "Senior Recruiter")).toBeLessThan(
      titleDistance("Recruiter", "Head of Recruiting"),
    );
  });

  it("keeps the level ladder ordered: nearer rungs are nearer", () => {
    const manager = "Marketing Manager";
    expect(titleDistance(manager, "Marketing Director")).toBeLessThan(titleDistance(manager, "VP Marketing"));
    expect(titleDistance(manager, "VP Marketing")).toBeLessThan(titleDistance(manager, "Software Engineer"));
  });

  it("expands abbreviations and finds level and function concepts", () => {
    const { tokens, concepts } = analyzeTitle("Sr. Dir. of Mktg");
    expect(tokens).toEqual(["senior", "director", "marketing"]);
    expect(concepts.get("lvl:director")).toBe(1);
    expect(concepts.get("fn:marketing")).toBe(1);
    expect(analyzeTitle("Head of Sales").concepts.has("lvl:vp")).toBe(true);
    expect(analyzeTitle("CTO").concepts.get("fn:engineering")).toBe(1);
    expect(analyzeTitle("CFO").tokens).toEqual(analyzeTitle("Chief Financial Officer").tokens);
  });

  it("is tied to DATASET_VERSION: stored title vectors are only rebuilt when the version changes", () => {
    // If this fails after a change to the title embedding or its vocabulary, bump DATASET_VERSION
    // and then update the fingerprint.
    const fingerprint = ["VP Marketing", "Software Engineer", "Recruiter", "CFO"]
      .flatMap((title) => Array.from(embedTitle(title)))
      .reduce((sum, x, i) => sum + x * ((i % 7) + 1), 0);
    expect({ version: DATASET_VERSION, fingerprint: fingerprint.toFixed(6) }).toEqual({
      version: 9,
      fingerprint: "21.032179",
    });
  });
});

describe("embedCompanyText", () => {
  const security =
    "Provides cloud security software for banks and credit unions. Helps clients detect threats before they spread. Computer and Network Security";
  const bakery = "Bakery cafes for diners. Helps clients enjoy fresh food. Restaurants";

  it("returns unit vectors, deterministically; empty text gives the zero vector", () => {
    const v = embedCompanyText(security);
    expect(v).toHaveLength(VECTOR_DIMS);
    expect(length(v)).toBeCloseTo(1, 5);
    expect(embedCompanyText(security)).toEqual(v);
    expect(length(embedCompanyText(""))).toBe(0);
    expect(length(embedCompanyText("of the and"))).toBe(0);
  });

  it("puts a short query near the descriptions that talk about it", () => {
    expect(textDistance("cloud security software", security)).toBeLessThan(0.25);
    expect(textDistance("cybersecurity", security)).toBeLessThan(0.55);
    expect(textDistance("cloud security software", bakery)).toBeGreaterThan(0.8);
    expect(textDistance("restaurant", bakery)).toBeLessThan(textDistance("restaurant", security));
  });

  it("cares about content words, not wording", () => {
    const a = "Provides payroll software for small businesses. Helps clients save time. Software Development";
    const b =
      "A provider of payroll software for small businesses. Customers use it to save time. Software Development";
    expect(textDistance(a, b)).toBeLessThan(0.05);
  });
});

describe("text that names a property of every object", () => {
  // A title or company text of "constructor" looked up Object's prototype and the count answered 500.
  it("is read as words like any other", () => {
    for (const text of ["constructor", "__proto__", "toString", "hasOwnProperty valueOf"]) {
      expect(() => embedTitle(text), text).not.toThrow();
      expect(() => embedCompanyText(text), text).not.toThrow();
      expect(titleTokens(text).length, text).toBeGreaterThan(0);
    }
  });
});
