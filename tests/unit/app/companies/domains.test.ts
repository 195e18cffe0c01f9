import { describe, expect, it } from "vitest";
import { listNotes, matchDomains, readDomainList } from "../../../../src/app/features/companies/domains";
import { isDomain, normaliseDomain } from "../../../../src/contract/domains";

describe("normaliseDomain: what people paste, read as the domain the data holds", () => {
  it("drops the scheme, www., the path, the port, an email's name, quotes and capitals", () => {
    const cases: [string, string][] = [
      ["https://www.Acme.com/about?x=1#top", "acme.com"],
      ["HTTP://ACME.COM", "acme.com"],
      ["www.acme.co.uk/", "acme.co.uk"],
      ["www2.acme.com", "acme.com"],
      ["acme.com:8080/path", "acme.com"],
      ["jane.doe@Acme.com", "acme.com"],
      ["mailto:jane@acme.com", "acme.com"],
      ['"acme.com"', "acme.com"],
      ["<acme.com>", "acme.com"],
      ["acme.com.", "acme.com"],
      ["  shop.acme.com  ", "shop.acme.com"],
      // www. is a name when nothing but the top-level domain follows it.
      ["www.com", "www.com"],
    ];
    for (const [written, domain] of cases) expect(normaliseDomain(written), written).toBe(domain);
  });

  it("tells a domain from what is not one", () => {
    for (const text of ["acme.com", "a-b.co.uk", "münchen.de", "x1.io"])
      expect(isDomain(text), text).toBe(true);
    for (const text of ["acme", "acme..com", "-acme.com", "acme-.com", "@acme.com", "acme .com", ""])
      expect(isDomain(text), text).toBe(false);
  });
});

describe("readDomainList: a pasted or uploaded list of target accounts", () => {
  it("keeps each domain once, in the order given, and says what it dropped and why", () => {
    const list = readDomainList(
      [
        "https://www.Acme.com/about",
        "",
        "beta.io",
        "ACME.COM",
        "  ",
        "not a domain",
        "www.gamma.de",
        "beta.io",
      ].join("\n"),
    );
    expect(list.domains).toEqual(["acme.com", "beta.io", "gamma.de"]);
    expect(list.blankLines).toBe(2);
    expect(list.duplicates).toBe(2);
    expect(list.shortened).toBe(3);
    expect(list.notDomains).toEqual(["not a domain"]);
    expect(list.entries).toBe(6);
    expect(list.header).toBeNull();
    expect(list.overLimit).toBe(0);
  });

  it("reads commas, semicolons, tabs and spaces between domains, and Windows line ends", () => {
    expect(readDomainList("a.com, b.com;c.com\td.com e.com\r\nf.com\rg.com").domains).toEqual([
      "a.com",
      "b.com",
      "c.com",
      "d.com",
      "e.com",
      "f.com",
      "g.com",
    ]);
  });

  it("reads only the domain column of a CSV file with a header row, quotes and all", () => {
    const csv = 'Company,Website,Country\n"Acme, Inc.",https://acme.com,US\nBeta,beta.io,"DE"\n\nGamma,,FR\n';
    const list = readDomainList(csv);
    expect(list.header).toEqual({ line: "Company,Website,Country", column: "Website" });
    expect(list.domains).toEqual(["acme.com", "beta.io"]);
    expect(list.notDomains).toEqual([]);
    // The line break at the end of the file is no blank line.
    expect(list.blankLines).toBe(1);
  });

  it("skips a CSV header row that names no domain column, and reads every cell after it", () => {
    const list = readDomainList("Name,Link\nAcme,acme.com\n");
    expect(list.header).toEqual({ line: "Name,Link", column: null });
    expect(list.domains).toEqual(["acme.com"]);
    expect(list.notDomains).toEqual(["Acme"]);
  });

  it("keeps a first line that is a domain, and a single word, as entries", () => {
    expect(readDomainList("acme.com,beta.io\n").header).toBeNull();
    expect(readDomainList("hello\nacme.com").notDomains).toEqual(["hello"]);
  });

  it("stops at the list limit and says how many were left out", () => {
    const text = Array.from({ length: 25 }, (_, i) => `d${i}.com`).join("\n");
    const list = readDomainList(`${text}\nd0.com`, 20);
    expect(list.domains).toHaveLength(20);
    expect(list.overLimit).toBe(5);
    expect(list.duplicates).toBe(1);
  });

  it("reads ten thousand lines quickly", () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `https://www.company-${i}.com/`).join("\n");
    const started = performance.now();
    const list = readDomainList(text);
    expect(list.domains).toHaveLength(10_000);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("matchDomains", () => {
  it("splits a list into the domains the data holds and the rest, with their people", () => {
    const counts = new Map([
      ["acme.com", 12],
      ["beta.io", 3],
    ]);
    expect(matchDomains(["acme.com", "nope.org", "beta.io"], counts)).toEqual({
      matched: ["acme.com", "beta.io"],
      unmatched: ["nope.org"],
      people: 15,
    });
  });
});

describe("listNotes: what reading the list changed or left out, in words", () => {
  it("says each kind once, with its count", () => {
    const list = readDomainList(
      "Domain\nhttps://www.acme.com\n\nacme.com\nnot-a-domain\nfoo bar\nb.io\nc.io\nd.io\ne.io\nf.io\ng.io\nh.io\n",
      3,
    );
    expect(listNotes(list)).toEqual([
      "The header row “Domain” was skipped; the Domain column was read.",
      "1 blank line skipped.",
      "1 entry read as the domain alone (https://www.Acme.com/about as acme.com).",
      "1 repeated domain counted once.",
      "2 entries are not domains, left out: “not-a-domain”, “foo bar”.",
      "5 domains past the first 3 left out: a condition holds at most 3.",
    ]);
    expect(listNotes(readDomainList("acme.com\nbeta.io"))).toEqual([]);
  });
});
