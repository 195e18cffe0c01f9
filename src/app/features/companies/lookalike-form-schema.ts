import { z } from "zod";
import { COMPANY_COLUMNS } from "../../../contract/columns";
import { isDomain, normaliseDomain } from "../../../contract/domains";
import { LOOKALIKE_LIMIT } from "../../../contract/inferred";
import type { LookalikeRequest } from "./api/lookalike";

/**
 * The lookalike finder's form: which company (by website domain, by name or by company id), how
 * many lookalikes, and which company columns to see. Checked here so that a request the service would
 * refuse is never sent; the service's own answer (no such company) is shown after it.
 */
export type LookalikeBy = "domain" | "name" | "rbidOrg";

/** The most characters a company name may have (the longest names of the data are far shorter). */
export const COMPANY_NAME_MAX = 200;

/**
 * What every lookalike is read by, so always asked for: its name, website, domain (a rule names the
 * company by it), industry and size. Company ID comes back with every company anyway.
 */
export const ALWAYS_COLUMNS: readonly string[] = [
  "COMPANY_NAME_ORG",
  "WEBSITE_ORG",
  "DOMAIN_ORG",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
];

/** The other company columns, which the person may add. */
export const CHOOSABLE_COLUMNS: readonly string[] = COMPANY_COLUMNS.filter(
  (name) => name !== "RBID_ORG" && !ALWAYS_COLUMNS.includes(name),
);

/** The service's default set, less what always comes: the form starts with these ticked. */
export const DEFAULT_COLUMNS: readonly string[] = ["HEADQUARTERS_COUNTRY_NAME_ORG"];

export interface LookalikeFormValues {
  by: LookalikeBy;
  company: string;
  limit: number;
  allColumns: boolean;
  columns: string[];
}

export const DEFAULT_FORM_VALUES: LookalikeFormValues = {
  by: "domain",
  company: "",
  limit: LOOKALIKE_LIMIT.default,
  allColumns: false,
  columns: [...DEFAULT_COLUMNS],
};

const LIMIT_MESSAGE = `Enter a whole number from ${LOOKALIKE_LIMIT.min} to ${LOOKALIKE_LIMIT.max}.`;

export const lookalikeFormSchema = z
  .object({
    by: z.enum(["domain", "name", "rbidOrg"]),
    company: z.string(),
    limit: z
      .number({ error: LIMIT_MESSAGE })
      .int({ error: LIMIT_MESSAGE })
      .min(LOOKALIKE_LIMIT.min, { error: LIMIT_MESSAGE })
      .max(LOOKALIKE_LIMIT.max, { error: LIMIT_MESSAGE }),
    allColumns: z.boolean(),
    columns: z.array(z.string()),
  })
  .superRefine((values, ctx) => {
    const text = values.company.trim();
    if (values.by === "domain") {
      if (text === "")
        ctx.addIssue({
          code: "custom",
          path: ["company"],
          message: "Enter the company's website domain, such as acme.com.",
        });
      else if (!isDomain(normaliseDomain(text)))
        ctx.addIssue({
          code: "custom",
          path: ["company"],
          message: "This does not look like a website domain: enter one such as acme.com.",
        });
    } else if (values.by === "name") {
      if (text === "")
        ctx.addIssue({
          code: "custom",
          path: ["company"],
          message: "Enter the company's name, such as Acme.",
        });
      else if (text.length > COMPANY_NAME_MAX)
        ctx.addIssue({
          code: "custom",
          path: ["company"],
          message: `A company name has at most ${COMPANY_NAME_MAX} characters.`,
        });
    } else if (text === "")
      ctx.addIssue({
        code: "custom",
        path: ["company"],
        message: "Enter the company ID (it starts with org_).",
      });
    else if (/\s/.test(text) || text.length > 64)
      ctx.addIssue({
        code: "custom",
        path: ["company"],
        message: "A company id is one word of at most 64 characters, such as org_1a2b3c4d5e6f.",
      });
    if (!values.allColumns) {
      const unknown = values.columns.filter((name) => !CHOOSABLE_COLUMNS.includes(name));
      if (unknown.length > 0)
        ctx.addIssue({
          code: "custom",
          path: ["columns"],
          message: `Unknown column: ${unknown.join(", ")}.`,
        });
    }
  });

/** The columns a valid form asks for: those always asked for and those ticked, in the catalogue's order. */
function requestedColumns(values: LookalikeFormValues): string[] {
  return values.allColumns
    ? ["*"]
    : COMPANY_COLUMNS.filter((name) => ALWAYS_COLUMNS.includes(name) || values.columns.includes(name));
}

/** A search by name: the company is found first (several may share it), then its lookalikes. */
export interface NamedSearch {
  name: string;
  limit: number;
  columns: string[];
}

/** What a valid form searches for: a request the service takes as it is, or a company by name. */
export type LookalikeSearch = { request: LookalikeRequest } | { named: NamedSearch };

export function toLookalikeSearch(values: LookalikeFormValues): LookalikeSearch {
  const columns = requestedColumns(values);
  const text = values.company.trim();
  if (values.by === "name") return { named: { name: text, limit: values.limit, columns } };
  return {
    request:
      values.by === "domain"
        ? { domain: normaliseDomain(text), limit: values.limit, columns }
        : { rbidOrg: text, limit: values.limit, columns },
  };
}

/** The request for a company found by name: by its domain, or its id when it has none. */
export function namedRequest(search: NamedSearch, company: { by: "domain" | "rbidOrg"; value: string }) {
  const { limit, columns } = search;
  return company.by === "domain"
    ? { domain: company.value, limit, columns }
    : { rbidOrg: company.value, limit, columns };
}
