/**
 * How well the default match level (`similar`) keeps to the query's job function (issue 19, item 4):
 * over the distinct titles the dataset generator can produce (no dataset is built), the share of
 * titles a `similar` match captures whose function, as the vocabulary lists it, is the query's.
 * A title with no function word ("Vice President") is listed under Executive, so it counts as
 * not sharing the function of any of these queries.
 *
 * Set TITLE_PRECISION_REPORT=1 to print the figures (src/sandbox/README.md quotes them).
 */
import { describe, expect, it } from "vitest";
import { MATCH_LEVEL_MAX_DISTANCE } from "../../../src/contract/inferred";
import { cosineDistance, embedTitle } from "../../../src/sandbox/dataset/embed";
import { allTitles, FUNCTION_NAMES } from "../../../src/sandbox/dataset/taxonomy";

interface Query {
  text: string;
  /** The query's function, a name from FUNCTION_NAMES. */
  fn: string;
  /** Spellings a person searching for `text` obviously expects to get. */
  expects: readonly string[];
}

/** Twelve common titles across functions and levels. */
const QUERIES: readonly Query[] = [
  {
    text: "VP Marketing",
    fn: "Marketing",
    expects: [
      "VP of Marketing",
      "Vice President, Marketing",
      "Vice President of Marketing",
      "Head of Marketing",
    ],
  },
  {
    text: "Software Engineer",
    fn: "Engineering",
    expects: ["Software Developer", "SWE", "Software Development Engineer", "Senior Software Engineer"],
  },
  {
    text: "Sales Manager",
    fn: "Sales",
    expects: ["Sales Mgr", "Regional Sales Manager", "Area Sales Manager"],
  },
  {
    text: "CFO",
    fn: "Finance",
    expects: ["Chief Financial Officer", "Chief Accounting Officer", "Head of Finance"],
  },
  {
    text: "Head of HR",
    fn: "Human Resources",
    expects: ["VP of HR", "VP Human Resources", "Head of People"],
  },
  {
    text: "Data Scientist",
    fn: "Data Science",
    expects: ["Senior Data Scientist", "Lead Data Scientist", "Staff Data Scientist"],
  },
  {
    text: "Product Manager",
    fn: "Product Management",
    expects: ["Senior Product Manager", "Sr. Product Manager", "Technical Product Manager"],
  },
  {
    text: "Marketing Manager",
    fn: "Marketing",
    expects: ["Marketing Mgr", "Manager, Marketing", "Mktg Manager", "Senior Marketing Manager"],
  },
  { text: "CTO", fn: "Engineering", expects: ["Chief Technology Officer", "Co-Founder & CTO"] },
  {
    text: "Account Executive",
    fn: "Sales",
    expects: ["AE", "Senior Account Executive", "Enterprise Account Executive"],
  },
  { text: "Recruiter", fn: "Human Resources", expects: ["Senior Recruiter", "Technical Recruiter"] },
  {
    text: "Customer Success Manager",
    fn: "Customer Success",
    expects: ["CSM", "Senior Customer Success Manager"],
  },
];

const CEILING = MATCH_LEVEL_MAX_DISTANCE.similar;
const TITLES = allTitles().map((t) => ({
  title: t.title,
  fn: FUNCTION_NAMES[t.functionIdx] ?? "",
  vec: embedTitle(t.title),
}));

/** What the sandbox's `similar` match captures: titles within the ceiling, and the text itself. */
function captured(text: string) {
  const query = embedTitle(text);
  return TITLES.filter(
    (t) => t.title.toLowerCase() === text.toLowerCase() || cosineDistance(query, t.vec) <= CEILING,
  );
}

const results = QUERIES.map((q) => {
  const titles = captured(q.text);
  const sharing = titles.filter((t) => t.fn === q.fn).length;
  return {
    ...q,
    titles,
    sharing,
    precision: sharing / titles.length,
    others: titles.filter((t) => t.fn !== q.fn).map((t) => `${t.title} (${t.fn})`),
  };
});
const pooled = results.reduce((s, r) => s + r.sharing, 0) / results.reduce((s, r) => s + r.titles.length, 0);

if (process.env.TITLE_PRECISION_REPORT) {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  for (const r of results)
    console.log(
      `${r.text} [${r.fn}]: ${r.sharing}/${r.titles.length} = ${pct(r.precision)}; ${r.others.join("; ")}`,
    );
  console.log(`pooled: ${pct(pooled)}`);
}

describe("`similar` title matches keep to the query's function", () => {
  it("labels every query with a function of the vocabulary, and every query is a dataset title", () => {
    for (const q of QUERIES) {
      expect(FUNCTION_NAMES).toContain(q.fn);
      expect(TITLES.find((t) => t.title === q.text)?.fn, q.text).toBe(q.fn);
    }
    expect(new Set(QUERIES.map((q) => q.fn)).size).toBeGreaterThanOrEqual(8);
  });

  it("pooled over the queries, at least 90% of captured titles share the query's function", () => {
    expect(pooled).toBeGreaterThanOrEqual(0.9);
  });

  it.each(results.map((r) => [r.text, r] as const))("%s: at least 80% share its function", (_, r) => {
    expect(r.precision, r.others.join("; ")).toBeGreaterThanOrEqual(0.8);
  });

  it.each(results.map((r) => [r.text, r] as const))(
    "%s: still captures its obvious variants and a few more",
    (_, r) => {
      const names = r.titles.map((t) => t.title);
      for (const expected of r.expects) expect(names, expected).toContain(expected);
      expect(r.titles.length).toBeGreaterThanOrEqual(4);
    },
  );
});
