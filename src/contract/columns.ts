import { type ColumnType, OPERATORS_BY_TYPE, type Operator } from "./inferred";

/**
 * The column catalogue: the columns the sandbox carries, with the service's names
 * (the 101 contact columns the service publishes). Types, levels, enumerability and masking are our inferred
 * choices (src/sandbox/README.md, "Columns").
 */
export type ColumnLevel = "person" | "company";

export interface Column {
  name: string;
  label: string;
  type: ColumnType;
  level: ColumnLevel;
  /** Its distinct values can be listed with the column-values operation (company columns only). */
  enumerable: boolean;
  /**
   * Its values are names many people share (a country, a title, an industry): the builder suggests
   * them with how many people carry each, and says when a typed one matches no one.
   */
  categorical?: boolean;
  /** Never returned by View: replaced there by the flag named here. */
  maskedAs?: "hasEmail" | "hasMobile";
  /** Its values have a natural order (size and revenue bands), kept when they are listed. */
  ordinal?: boolean;
  description?: string;
}

type Spec = [name: string, label: string, type: ColumnType, level: ColumnLevel, extra?: Partial<Column>];

const SPECS: Spec[] = [
  ["RBID_PAO", "Contact ID", "text", "person", { description: "Stable id of one person at one company" }],
  ["RBID_PER", "Person ID", "text", "person"],
  ["RBID_ORG", "Company ID", "text", "company"],
  ["FIRST_NAME_PER", "First name", "text", "person"],
  ["LAST_NAME_PER", "Last name", "text", "person"],
  ["FULL_NAME_PER", "Full name", "text", "person"],
  ["JOB_TITLE_PER", "Job title", "text", "person", { categorical: true }],
  ["JOB_LEVEL_PER", "Job level", "text", "person", { categorical: true }],
  ["JOB_FUNCTION_PER", "Job function", "text", "person", { categorical: true }],
  ["EMAIL_ADDRESS_PER", "Email", "text", "person", { maskedAs: "hasEmail" }],
  ["CELLPHONE_PER", "Mobile", "text", "person", { maskedAs: "hasMobile" }],
  ["LINKEDIN_URL_PER", "LinkedIn profile", "text", "person"],
  ["CITY_PER", "City", "text", "person", { categorical: true }],
  ["STATE_NAME_PER", "State or region", "text", "person", { categorical: true }],
  ["COUNTRY_NAME_PER", "Country", "text", "person", { categorical: true }],
  ["CONTINENT_PER", "Continent", "text", "person", { categorical: true }],
  ["COMPANY_NAME_ORG", "Company", "text", "company", { categorical: true }],
  ["DOMAIN_ORG", "Company domain", "text", "company", { categorical: true }],
  ["WEBSITE_ORG", "Company website", "text", "company"],
  ["INDUSTRY_LINKEDIN_ORG", "Industry", "text", "company", { enumerable: true, categorical: true }],
  ["EMPLOYEE_COUNT_MIN", "Employees (min)", "integer", "company"],
  ["EMPLOYEE_COUNT_MAX", "Employees (max)", "integer", "company"],
  [
    "EMPLOYEE_COUNT_RANGE_ORG",
    "Employee range",
    "text",
    "company",
    { enumerable: true, categorical: true, ordinal: true },
  ],
  [
    "REVENUE_RANGE_ORG",
    "Revenue range",
    "text",
    "company",
    { enumerable: true, categorical: true, ordinal: true },
  ],
  ["REVENUE_MIN", "Revenue (min, USD)", "integer", "company"],
  ["REVENUE_MAX", "Revenue (max, USD)", "integer", "company"],
  ["FOUNDED_ORG", "Founded", "integer", "company"],
  ["HEADQUARTERS_CITY_ORG", "HQ city", "text", "company", { categorical: true }],
  ["HEADQUARTERS_COUNTRY_NAME_ORG", "HQ country", "text", "company", { enumerable: true, categorical: true }],
  ["ABOUT_US_ORG", "About the company", "text", "company"],
];

export const COLUMNS: readonly Column[] = SPECS.map(([name, label, type, level, extra]) => ({
  name,
  label,
  type,
  level,
  enumerable: false,
  ...extra,
}));

export const COLUMN_NAMES: readonly string[] = COLUMNS.map((c) => c.name);

const byName = new Map(COLUMNS.map((c) => [c.name, c]));

export function getColumn(name: string): Column | undefined {
  return byName.get(name);
}

/** Operators a column accepts: by type, or only null checks when it is masked. */
export function operatorsFor(column: Column): readonly Operator[] {
  return column.maskedAs ? OPERATORS_BY_TYPE.masked : OPERATORS_BY_TYPE[column.type];
}

export const MASK_FLAGS = { hasEmail: "EMAIL_ADDRESS_PER", hasMobile: "CELLPHONE_PER" } as const;
export type MaskFlag = keyof typeof MASK_FLAGS;

export const ENUMERABLE_COMPANY_COLUMNS: readonly string[] = COLUMNS.filter((c) => c.enumerable).map(
  (c) => c.name,
);
export const COMPANY_COLUMNS: readonly string[] = COLUMNS.filter((c) => c.level === "company").map(
  (c) => c.name,
);

/** Display label of a returned field: a column, a mask flag or the score. */
export function labelOf(field: string): string {
  if (field === "hasEmail") return "Has email";
  if (field === "hasMobile") return "Has mobile";
  if (field === "score") return "Similarity";
  return byName.get(field)?.label ?? field;
}

/**
 * How a CSV file's header row names its columns: by their labels ("Contact ID"), for people; by
 * the service's names ("RBID_PAO"), for files loaded back into systems that expect those; or by a
 * CRM's own field names, which its importer maps without a person mapping each column
 * (`CRM_FIELD_NAMES`).
 */
export const CSV_HEADER_STYLES = ["labels", "names", "hubspot", "salesforce"] as const;
export type CsvHeaderStyle = (typeof CSV_HEADER_STYLES)[number];

/**
 * The CRMs' field names for the columns they have a field for; any other column keeps its label,
 * and the importer offers to map it or make a field of it (a LinkedIn profile has no standard
 * field in either).
 * - HubSpot: the internal names of its default contact properties (developers.hubspot.com, CRM
 *   properties API: `firstname`, `lastname`, `email`, `jobtitle`, `company`, …). HubSpot's import
 *   matches a column header to the property name (knowledge.hubspot.com, "Set up your import
 *   files"); names, unlike labels, do not change with the account's language.
 * - Salesforce: the API names of the Lead object's standard fields (developer.salesforce.com, Field
 *   Reference, Lead: `FirstName`, `LastName`, `Email`, `Title`, `Company`, …), which the Data Import
 *   Wizard maps as it maps their labels.
 */
export const CRM_FIELD_NAMES: Readonly<Record<"hubspot" | "salesforce", Readonly<Record<string, string>>>> = {
  hubspot: {
    FIRST_NAME_PER: "firstname",
    LAST_NAME_PER: "lastname",
    EMAIL_ADDRESS_PER: "email",
    CELLPHONE_PER: "mobilephone",
    JOB_TITLE_PER: "jobtitle",
    COMPANY_NAME_ORG: "company",
    WEBSITE_ORG: "website",
    CITY_PER: "city",
    STATE_NAME_PER: "state",
    COUNTRY_NAME_PER: "country",
    INDUSTRY_LINKEDIN_ORG: "industry",
  },
  salesforce: {
    FIRST_NAME_PER: "FirstName",
    LAST_NAME_PER: "LastName",
    EMAIL_ADDRESS_PER: "Email",
    CELLPHONE_PER: "MobilePhone",
    JOB_TITLE_PER: "Title",
    COMPANY_NAME_ORG: "Company",
    WEBSITE_ORG: "Website",
    CITY_PER: "City",
    STATE_NAME_PER: "State",
    COUNTRY_NAME_PER: "Country",
    INDUSTRY_LINKEDIN_ORG: "Industry",
  },
};

/** One column's header in a style, before two columns sharing one are told apart. */
function headerIn(style: Exclude<CsvHeaderStyle, "names">, name: string): string {
  return (style === "labels" ? undefined : CRM_FIELD_NAMES[style][name]) ?? labelOf(name);
}

/**
 * The header row of a CSV file of `columns`. Names: the columns as they are. Labels: each column's
 * label (a name the catalogue does not know stays as it is). A CRM's: its field name where it has
 * one, else the label. Never one header twice, so a file read back by its headers loses no column:
 * a header another column's header also is carries its name ("Email (EMAIL_ADDRESS_PER)"), and
 * what still repeats (a name given twice) is numbered. Compared without case, as spreadsheets and
 * most importers compare headers.
 */
export function csvHeaders(columns: readonly string[], style: CsvHeaderStyle): string[] {
  if (style === "names") return [...columns];
  const key = (header: string) => header.toLowerCase();
  const labels = columns.map((name) => headerIn(style, name));
  const namesOf = new Map<string, Set<string>>();
  for (const [i, label] of labels.entries())
    namesOf.set(key(label), (namesOf.get(key(label)) ?? new Set()).add(columns[i]!));
  const taken = new Set<string>();
  return columns.map((name, i) => {
    const label = labels[i]!;
    const shared = (namesOf.get(key(label))?.size ?? 0) > 1;
    const wanted = shared && label !== name ? `${label} (${name})` : label;
    let header = wanted;
    for (let n = 2; taken.has(key(header)); n++) header = `${wanted} (${n})`;
    taken.add(key(header));
    return header;
  });
}
