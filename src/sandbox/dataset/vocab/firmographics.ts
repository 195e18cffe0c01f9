/**
 * Company size and revenue bands, labelled as LinkedIn and B2B data vendors label them.
 * The open-ended top bands (`10001+`, `$1B+`) have a null maximum.
 */
export interface Band {
  label: string;
  min: number;
  max: number | null;
}

export const EMPLOYEE_RANGES: readonly (Band & { weight: number; contactWeight: number })[] = [
  // weight: share of companies; contactWeight: relative number of contacts per company.
  { label: "1-10", min: 1, max: 10, weight: 24, contactWeight: 3 },
  { label: "11-50", min: 11, max: 50, weight: 27, contactWeight: 7 },
  { label: "51-200", min: 51, max: 200, weight: 22, contactWeight: 15 },
  { label: "201-500", min: 201, max: 500, weight: 11, contactWeight: 30 },
  { label: "501-1000", min: 501, max: 1000, weight: 6, contactWeight: 50 },
  { label: "1001-5000", min: 1001, max: 5000, weight: 6, contactWeight: 90 },
  { label: "5001-10000", min: 5001, max: 10000, weight: 2, contactWeight: 160 },
  { label: "10001+", min: 10001, max: null, weight: 2, contactWeight: 300 },
];

export const REVENUE_RANGES: readonly Band[] = [
  { label: "<$1M", min: 0, max: 999_999 },
  { label: "$1M-$10M", min: 1_000_000, max: 9_999_999 },
  { label: "$10M-$50M", min: 10_000_000, max: 49_999_999 },
  { label: "$50M-$100M", min: 50_000_000, max: 99_999_999 },
  { label: "$100M-$500M", min: 100_000_000, max: 499_999_999 },
  { label: "$500M-$1B", min: 500_000_000, max: 999_999_999 },
  { label: "$1B+", min: 1_000_000_000, max: null },
];

/** Revenue band weights (percent) for each employee range, same order as the arrays above. */
export const REVENUE_BY_EMPLOYEE_RANGE: readonly (readonly number[])[] = [
  [70, 28, 2, 0, 0, 0, 0],
  [20, 60, 18, 2, 0, 0, 0],
  [2, 35, 45, 13, 5, 0, 0],
  [0, 5, 35, 33, 25, 2, 0],
  [0, 0, 10, 30, 48, 8, 4],
  [0, 0, 0, 8, 45, 27, 20],
  [0, 0, 0, 0, 15, 35, 50],
  [0, 0, 0, 0, 2, 10, 88],
];

/** Email address patterns; `first@` only at small companies (see `companies.ts`). */
export const EMAIL_PATTERNS = ["first.last", "flast", "first", "first_last"] as const;
export const EMAIL_PATTERN_WEIGHTS = [60, 20, 10, 10];
