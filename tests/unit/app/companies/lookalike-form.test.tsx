// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { valueKey } from "../../../../src/app/api/value-counts";
import { filterValues, orderByPeople } from "../../../../src/app/features/companies/column-values-browser";
import { companyNodeFor, lookalikeNodeFor } from "../../../../src/app/features/companies/lookalike-finder";
import { LookalikeForm } from "../../../../src/app/features/companies/lookalike-form";
import {
  ALWAYS_COLUMNS,
  CHOOSABLE_COLUMNS,
  DEFAULT_FORM_VALUES,
  type LookalikeFormValues,
  lookalikeFormSchema,
  toLookalikeSearch,
} from "../../../../src/app/features/companies/lookalike-form-schema";
import { companyName, resultColumns } from "../../../../src/app/features/companies/lookalike-results";
import { formatSimilarity, similarityWords } from "../../../../src/app/features/companies/similarity";
import { COMPANY_COLUMNS } from "../../../../src/contract/columns";
import { normaliseDomain } from "../../../../src/contract/domains";
import { strictFilterSchemas } from "../../../../src/contract/filter";
import { requests } from "../../../../src/contract/operations";

afterEach(cleanup);

/** Asked with every search, in the catalogue's order. */
const ALWAYS = [
  "COMPANY_NAME_ORG",
  "DOMAIN_ORG",
  "WEBSITE_ORG",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
];

const values = (patch: Partial<LookalikeFormValues>): LookalikeFormValues => ({
  ...DEFAULT_FORM_VALUES,
  ...patch,
});
/** The form's messages for `patch`, by field (none when it is valid). */
function messages(patch: Partial<LookalikeFormValues>): Record<string, string> {
  const result = lookalikeFormSchema.safeParse(values(patch));
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [String(issue.path[0]), issue.message]));
}

describe("lookalike form validation", () => {
  it("accepts a domain, a pasted address, or a company id", () => {
    expect(messages({ company: "acme.com" })).toEqual({});
    expect(messages({ company: "  https://www.Acme.co.uk/about?x=1 " })).toEqual({});
    expect(messages({ by: "rbidOrg", company: "org_1a2b3c4d5e6f" })).toEqual({});
  });

  it("asks for the company, by the way chosen", () => {
    expect(messages({ company: "  " }).company).toMatch(/website domain, such as acme.com/);
    expect(messages({ by: "rbidOrg", company: "" }).company).toBe(
      "Enter the company ID (it starts with org_).",
    );
  });

  it("refuses what is not a domain, or not one word for an id", () => {
    for (const company of ["acme", "acme .com", "@acme.com", "acme..com", "-acme.com"])
      expect(messages({ company }).company, company).toMatch(/does not look like a website domain/);
    expect(messages({ by: "rbidOrg", company: "org 123" }).company).toMatch(/one word/);
    expect(messages({ by: "rbidOrg", company: "x".repeat(65) }).company).toMatch(/at most 64/);
  });

  it("takes a whole number from 1 to 100 as the limit", () => {
    for (const limit of [1, 25, 100]) expect(messages({ company: "acme.com", limit })).toEqual({});
    for (const limit of [0, 101, 2.5, Number.NaN, -3])
      expect(messages({ company: "acme.com", limit }).limit, String(limit)).toBe(
        "Enter a whole number from 1 to 100.",
      );
  });

  it("takes no extra column, or known company columns only", () => {
    expect(messages({ company: "acme.com", columns: [] })).toEqual({});
    expect(messages({ company: "acme.com", columns: [], allColumns: true })).toEqual({});
    expect(messages({ company: "acme.com", columns: ["JOB_TITLE_PER"] }).columns).toMatch(/Unknown column/);
  });
});

describe("the request a valid form makes", () => {
  it("sends the normalised domain, the limit, and the columns always asked with those ticked, in catalogue order", () => {
    const search = toLookalikeSearch(
      values({ company: "HTTPS://www.Acme.com/x", limit: 7, columns: ["FOUNDED_ORG"] }),
    );
    expect(search).toEqual({
      request: { domain: "acme.com", limit: 7, columns: [...ALWAYS, "FOUNDED_ORG"] },
    });
    const request = "request" in search ? search.request : null;
    expect(requests.lookalike.safeParse(request).success).toBe(true);
  });

  it("sends the company id as typed (trimmed), and * for All columns", () => {
    const search = toLookalikeSearch(values({ by: "rbidOrg", company: " org_abc ", allColumns: true }));
    expect(search).toEqual({ request: { rbidOrg: "org_abc", limit: 25, columns: ["*"] } });
    const request = "request" in search ? search.request : null;
    expect(requests.lookalike.safeParse(request).success).toBe(true);
  });

  it("searches by name as typed (trimmed): the company is found before its lookalikes are asked for", () => {
    expect(toLookalikeSearch(values({ by: "name", company: "  Acme Corp ", limit: 5 }))).toEqual({
      named: { name: "Acme Corp", limit: 5, columns: [...ALWAYS, "HEADQUARTERS_COUNTRY_NAME_ORG"] },
    });
    expect(messages({ by: "name", company: " " }).company).toBe("Enter the company's name, such as Acme.");
    expect(messages({ by: "name", company: "x".repeat(201) }).company).toMatch(/at most 200/);
  });

  it("always asks for name, website, domain, industry and size, and offers the rest but the id", () => {
    expect(ALWAYS_COLUMNS).toEqual(expect.arrayContaining(ALWAYS));
    expect([...CHOOSABLE_COLUMNS, ...ALWAYS_COLUMNS, "RBID_ORG"].sort()).toEqual([...COMPANY_COLUMNS].sort());
    expect(normaliseDomain(" www.Example.org/")).toBe("example.org");
  });
});

describe("LookalikeForm", () => {
  it("shows the reason beside the field and sends nothing while the form is invalid", async () => {
    const onSubmit = vi.fn();
    render(<LookalikeForm busy={false} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
    const field = screen.getByRole("textbox", { name: "Website domain" });
    await waitFor(() => expect(field.getAttribute("aria-invalid")).toBe("true"));
    const reason = "Enter the company's website domain, such as acme.com.";
    expect(screen.getByRole("alert").textContent).toBe(reason);
    expect(document.getElementById(field.getAttribute("aria-describedby")!)?.textContent).toBe(reason);
    expect(onSubmit).not.toHaveBeenCalled();

    fireEvent.change(screen.getByRole("spinbutton", { name: "How many" }), { target: { value: "500" } });
    fireEvent.change(field, { target: { value: "acme.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
    await waitFor(() =>
      expect(screen.getByRole("alert").textContent).toBe("Enter a whole number from 1 to 100."),
    );
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("switches to company id, ticks All columns, and submits the request", async () => {
    const onSubmit = vi.fn();
    render(<LookalikeForm busy={false} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("radio", { name: "Company ID" }));
    const field = screen.getByRole("textbox", { name: "Company ID" });
    fireEvent.change(field, { target: { value: "org_42" } });
    fireEvent.change(screen.getByRole("spinbutton", { name: "How many" }), { target: { value: "10" } });
    const columns = screen.getByRole("group", { name: "More columns to show" });
    expect((within(columns).getByRole("checkbox", { name: "HQ country" }) as HTMLInputElement).checked).toBe(
      true,
    );
    // What a lookalike is read by is not a choice.
    expect(within(columns).queryByRole("checkbox", { name: "Industry" })).toBeNull();
    fireEvent.click(within(columns).getByRole("checkbox", { name: "All columns" }));
    // The single columns step aside while All columns is ticked.
    expect(within(columns).queryByRole("checkbox", { name: "HQ country" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ request: { rbidOrg: "org_42", limit: 10, columns: ["*"] } });
  });

  it("still asks for the columns a lookalike is read by when every box is unticked", async () => {
    const onSubmit = vi.fn();
    render(<LookalikeForm busy={false} onSubmit={onSubmit} />);
    fireEvent.change(screen.getByRole("textbox", { name: "Website domain" }), {
      target: { value: "acme.com" },
    });
    const columns = screen.getByRole("group", { name: "More columns to show" });
    for (const box of within(columns).getAllByRole("checkbox"))
      if ((box as HTMLInputElement).checked) fireEvent.click(box);
    fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
    await waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith({ request: { domain: "acme.com", limit: 25, columns: ALWAYS } }),
    );
    fireEvent.click(within(columns).getByRole("checkbox", { name: "Founded" }));
    fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
    await waitFor(() =>
      expect(onSubmit).toHaveBeenLastCalledWith({
        request: { domain: "acme.com", limit: 25, columns: [...ALWAYS, "FOUNDED_ORG"] },
      }),
    );
  });

  it("disables the button while a search runs", () => {
    render(<LookalikeForm busy onSubmit={() => {}} />);
    expect((screen.getByRole("button", { name: "Finding…" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("results", () => {
  it("says how similar in words, on the match levels' steps, with a percentage", () => {
    expect(similarityWords(0)).toBe("Nearly the same");
    expect(similarityWords(0.1)).toBe("Nearly the same");
    expect(similarityWords(0.2)).toBe("Very similar");
    expect(similarityWords(0.3)).toBe("Related");
    expect(similarityWords(0.5)).toBe("Broadly related");
    expect(similarityWords(0.9)).toBe("Not much alike");
    expect(similarityWords(Number.NaN)).toBe("Unknown");
    expect(formatSimilarity(0.214835)).toBe("79% similar");
    expect(formatSimilarity(0)).toBe("100% similar");
    expect(formatSimilarity(1.4)).toBe("0% similar");
    expect(formatSimilarity(Number.NaN)).toBe("—");
  });

  it("orders the table: name, similarity, actions, website, industry, size, domain, the catalogue's order, the id", () => {
    const company = {
      RBID_ORG: "o2",
      FOUNDED_ORG: 2001,
      COMPANY_NAME_ORG: "Beta",
      DOMAIN_ORG: "b.io",
      HEADQUARTERS_COUNTRY_NAME_ORG: "Germany",
      EMPLOYEE_COUNT_RANGE_ORG: "11-50",
      INDUSTRY_LINKEDIN_ORG: "Banking",
      WEBSITE_ORG: "https://www.b.io",
    };
    const answer = {
      source: { RBID_ORG: "o1", FOUNDED_ORG: 1990, COMPANY_NAME_ORG: "Acme", DOMAIN_ORG: "acme.com" },
      companies: [{ ...company, distance: 0.1 }],
      limit: 1,
    };
    expect(resultColumns(answer)).toEqual([
      "COMPANY_NAME_ORG",
      "distance",
      "use",
      "WEBSITE_ORG",
      "INDUSTRY_LINKEDIN_ORG",
      "EMPLOYEE_COUNT_RANGE_ORG",
      "DOMAIN_ORG",
      "FOUNDED_ORG",
      "HEADQUARTERS_COUNTRY_NAME_ORG",
      "RBID_ORG",
    ]);
    expect(companyName(answer.source)).toBe("Acme");
    expect(companyName({ RBID_ORG: "o9" })).toBe("o9");
  });

  it("makes a valid lookalike rule: by domain when there is one, else by company id", () => {
    const byDomain = lookalikeNodeFor({ RBID_ORG: "org_1", DOMAIN_ORG: "acme.com" });
    expect(byDomain).toEqual({
      type: "lookalike",
      domain: "acme.com",
      rbidOrg: "",
      match: "similar",
      negate: false,
    });
    const byId = lookalikeNodeFor({ RBID_ORG: "org_1", DOMAIN_ORG: null });
    expect(byId).toEqual({
      type: "lookalike",
      domain: "",
      rbidOrg: "org_1",
      match: "similar",
      negate: false,
    });
    for (const node of [byDomain, byId]) expect(strictFilterSchemas.node.safeParse(node).success).toBe(true);
    expect(lookalikeNodeFor({ COMPANY_NAME_ORG: "Nameless" })).toBeNull();
  });

  it("makes the rule for the company itself: by domain, else by name, else by id", () => {
    const rule = (company: Record<string, unknown>) => {
      const node = companyNodeFor(company);
      return node && { column: node.column, operator: node.operator, value: node.value };
    };
    expect(rule({ RBID_ORG: "org_1", DOMAIN_ORG: "acme.com", COMPANY_NAME_ORG: "Acme" })).toEqual({
      column: "DOMAIN_ORG",
      operator: "eq",
      value: "acme.com",
    });
    expect(rule({ RBID_ORG: "org_1", DOMAIN_ORG: " ", COMPANY_NAME_ORG: "Acme" })).toEqual({
      column: "COMPANY_NAME_ORG",
      operator: "eq",
      value: "Acme",
    });
    expect(rule({ RBID_ORG: "org_1" })).toEqual({ column: "RBID_ORG", operator: "eq", value: "org_1" });
    expect(companyNodeFor({})).toBeNull();
  });

  it("filters column values by a case-insensitive search", () => {
    const list = ["Banking", "Computer Games", "Investment Banking"];
    expect(filterValues(list, "  bank ")).toEqual(["Banking", "Investment Banking"]);
    expect(filterValues(list, "")).toEqual(list);
    expect(filterValues(list, "zzz")).toEqual([]);
    // With people in the audience first, most first; those with no one last, in the service's order.
    const counts = new Map([
      [valueKey("Banking"), 3],
      [valueKey("Insurance"), 9],
      [valueKey("Investment Banking"), 3],
    ]);
    expect(
      orderByPeople(["Accounting", "Banking", "Insurance", "Investment Banking", "Zoos"], counts),
    ).toEqual(["Insurance", "Banking", "Investment Banking", "Accounting", "Zoos"]);
  });
});
