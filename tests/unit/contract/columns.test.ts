import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COLUMN_NAMES,
  COLUMNS,
  COMPANY_COLUMNS,
  CRM_FIELD_NAMES,
  csvHeaders,
  ENUMERABLE_COMPANY_COLUMNS,
  getColumn,
  labelOf,
  MASK_FLAGS,
  operatorsFor,
} from "../../../src/contract/columns";
import { DEFAULT_VIEW_COLUMNS } from "../../../src/contract/inferred";

/** src/sandbox/README.md, "Columns", copied as written. */
const LISTED =
  `RBID_PAO RBID_PER RBID_ORG FIRST_NAME_PER LAST_NAME_PER FULL_NAME_PER JOB_TITLE_PER JOB_LEVEL_PER
JOB_FUNCTION_PER EMAIL_ADDRESS_PER CELLPHONE_PER LINKEDIN_URL_PER CITY_PER STATE_NAME_PER
COUNTRY_NAME_PER CONTINENT_PER COMPANY_NAME_ORG DOMAIN_ORG WEBSITE_ORG INDUSTRY_LINKEDIN_ORG
EMPLOYEE_COUNT_MIN EMPLOYEE_COUNT_MAX EMPLOYEE_COUNT_RANGE_ORG REVENUE_RANGE_ORG REVENUE_MIN
REVENUE_MAX FOUNDED_ORG HEADQUARTERS_CITY_ORG HEADQUARTERS_COUNTRY_NAME_ORG ABOUT_US_ORG`.split(/\s+/);
const INTEGERS = ["EMPLOYEE_COUNT_MIN", "EMPLOYEE_COUNT_MAX", "REVENUE_MIN", "REVENUE_MAX", "FOUNDED_ORG"];
const ENUMERABLE = [
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
];

describe("column catalogue", () => {
  it("holds the 30 listed columns, once each, in the listed order", () => {
    expect(LISTED).toHaveLength(30);
    expect(COLUMN_NAMES).toEqual(LISTED);
    expect(new Set(COLUMN_NAMES).size).toBe(COLUMN_NAMES.length);
  });

  it("types the five numeric columns integer and every other one text", () => {
    for (const column of COLUMNS)
      expect(column.type, column.name).toBe(INTEGERS.includes(column.name) ? "integer" : "text");
  });

  it("keeps the documented columns and the three ids filterable as text", () => {
    for (const name of [
      "RBID_PAO",
      "RBID_PER",
      "RBID_ORG",
      "FULL_NAME_PER",
      "JOB_TITLE_PER",
      "COMPANY_NAME_ORG",
      "COUNTRY_NAME_PER",
      "JOB_LEVEL_PER",
    ]) {
      const column = getColumn(name);
      expect(column?.type, name).toBe("text");
      expect(operatorsFor(column!), name).toContain("eq");
    }
  });

  it("lists exactly the four enumerable company columns", () => {
    expect([...ENUMERABLE_COMPANY_COLUMNS].sort()).toEqual([...ENUMERABLE].sort());
    for (const name of ENUMERABLE_COMPANY_COLUMNS) expect(getColumn(name)?.level, name).toBe("company");
  });

  it("maps the masked columns to hasEmail and hasMobile, and masks nothing else", () => {
    expect(getColumn("EMAIL_ADDRESS_PER")?.maskedAs).toBe("hasEmail");
    expect(getColumn("CELLPHONE_PER")?.maskedAs).toBe("hasMobile");
    expect(COLUMNS.filter((c) => c.maskedAs).map((c) => c.name)).toEqual([
      "EMAIL_ADDRESS_PER",
      "CELLPHONE_PER",
    ]);
    expect(MASK_FLAGS).toEqual({ hasEmail: "EMAIL_ADDRESS_PER", hasMobile: "CELLPHONE_PER" });
    for (const [flag, name] of Object.entries(MASK_FLAGS)) expect(getColumn(name)?.maskedAs).toBe(flag);
  });

  it("allows only null checks on masked columns and the type's operators elsewhere", () => {
    expect(operatorsFor(getColumn("EMAIL_ADDRESS_PER")!)).toEqual(["isNull", "isNotNull"]);
    expect(operatorsFor(getColumn("CELLPHONE_PER")!)).toEqual(["isNull", "isNotNull"]);
    expect([...operatorsFor(getColumn("CITY_PER")!)].sort()).toEqual(
      ["eq", "ne", "contains", "startsWith", "endsWith", "in", "notIn", "isNull", "isNotNull"].sort(),
    );
    expect([...operatorsFor(getColumn("FOUNDED_ORG")!)].sort()).toEqual(
      ["eq", "ne", "gt", "gte", "lt", "lte", "between", "in", "notIn", "isNull", "isNotNull"].sort(),
    );
  });

  it("puts *_ORG and the company figures at company level, *_PER and RBID_PAO at person level", () => {
    for (const column of COLUMNS) {
      const company = column.name.endsWith("_ORG") || /^(EMPLOYEE_COUNT|REVENUE)_/.test(column.name);
      expect(column.level, column.name).toBe(company ? "company" : "person");
    }
    expect(COMPANY_COLUMNS).toContain("RBID_ORG");
    expect(COMPANY_COLUMNS).not.toContain("RBID_PAO");
  });

  it("finds columns by exact name only", () => {
    expect(getColumn("CITY_PER")?.label).toBe("City");
    for (const name of ["city_per", "", "hasEmail", "constructor", "__proto__", "toString"])
      expect(getColumn(name), name).toBeUndefined();
  });

  it("labels columns, mask flags and the score", () => {
    expect(labelOf("hasEmail")).toBe("Has email");
    expect(labelOf("hasMobile")).toBe("Has mobile");
    expect(labelOf("score")).toBe("Similarity");
    expect(labelOf("JOB_TITLE_PER")).toBe("Job title");
    expect(labelOf("UNKNOWN_THING")).toBe("UNKNOWN_THING");
    for (const column of COLUMNS) expect(column.label.length, column.name).toBeGreaterThan(0);
  });

  it("builds the View's default set from known columns", () => {
    expect([...DEFAULT_VIEW_COLUMNS]).toEqual([
      "RBID_PAO",
      "FULL_NAME_PER",
      "JOB_TITLE_PER",
      "JOB_LEVEL_PER",
      "COMPANY_NAME_ORG",
      "COUNTRY_NAME_PER",
      "EMAIL_ADDRESS_PER",
      "CELLPHONE_PER",
    ]);
    for (const name of DEFAULT_VIEW_COLUMNS) expect(getColumn(name), name).toBeDefined();
  });
});

describe("a CSV file's header row", () => {
  it("in labels: the catalogue's label of each column, a name it does not know kept as it is", () => {
    expect(csvHeaders(["RBID_PAO", "FULL_NAME_PER", "EMAIL_ADDRESS_PER", "my_field"], "labels")).toEqual([
      "Contact ID",
      "Full name",
      "Email",
      "my_field",
    ]);
  });

  it("in names: the columns as they are", () => {
    const names = ["RBID_PAO", "FULL_NAME_PER", "RBID_PAO"];
    expect(csvHeaders(names, "names")).toEqual(names);
  });

  it("in a CRM's names: its field name where it has one, else the label", () => {
    const columns =
      "EMAIL_ADDRESS_PER RBID_PAO FIRST_NAME_PER LAST_NAME_PER JOB_TITLE_PER COMPANY_NAME_ORG DOMAIN_ORG LINKEDIN_URL_PER COUNTRY_NAME_PER".split(
        " ",
      );
    // HubSpot's default contact properties' internal names; Salesforce's Lead API names.
    expect(csvHeaders(columns, "hubspot")).toEqual([
      "email",
      "Contact ID",
      "firstname",
      "lastname",
      "jobtitle",
      "company",
      "Company domain",
      "LinkedIn profile",
      "country",
    ]);
    expect(csvHeaders(columns, "salesforce")).toEqual([
      "Email",
      "Contact ID",
      "FirstName",
      "LastName",
      "Title",
      "Company",
      "Company domain",
      "LinkedIn profile",
      "Country",
    ]);
  });

  it("maps only columns of the catalogue, each CRM field once", () => {
    for (const names of Object.values(CRM_FIELD_NAMES)) {
      for (const column of Object.keys(names)) expect(getColumn(column), column).toBeDefined();
      const fields = Object.values(names).map((f) => f.toLowerCase());
      expect(new Set(fields).size).toBe(fields.length);
    }
  });

  it("gives every column of the catalogue a header of its own, in every style", () => {
    for (const style of ["hubspot", "salesforce"] as const) {
      const headers = csvHeaders(COLUMN_NAMES, style);
      expect(new Set(headers.map((h) => h.toLowerCase())).size, style).toBe(COLUMN_NAMES.length);
    }
  });

  it("gives every column of the catalogue a header of its own", () => {
    const headers = csvHeaders(COLUMN_NAMES, "labels");
    expect(new Set(headers.map((h) => h.toLowerCase())).size).toBe(COLUMN_NAMES.length);
    expect(headers).toEqual(COLUMNS.map((c) => c.label));
  });

  it("never gives two columns one header, whatever their names (compared without case)", () => {
    expect(csvHeaders(["EMAIL_ADDRESS_PER", "email"], "labels")).toEqual([
      "Email (EMAIL_ADDRESS_PER)",
      "email",
    ]);
    expect(csvHeaders(["RBID_PAO", "RBID_PAO", "Contact ID (2)"], "labels")).toEqual([
      "Contact ID",
      "Contact ID (2)",
      "Contact ID (2) (2)",
    ]);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...COLUMN_NAMES, "Email", "Contact ID", "email", "Email (EMAIL_ADDRESS_PER)"),
            fc.string(),
          ),
          {
            maxLength: 12,
          },
        ),
        (names) => {
          const headers = csvHeaders(names, "labels");
          expect(headers).toHaveLength(names.length);
          expect(new Set(headers.map((h) => h.toLowerCase())).size).toBe(names.length);
        },
      ),
    );
  });
});
