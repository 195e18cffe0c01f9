import { type Plan, PRICE, type Reveal } from "./inferred";

/**
 * What delivered contacts cost, once: the sandbox charges with it and the app shows the most a
 * purchase can cost with it. The price table itself is PRICE (inferred.ts).
 */

/**
 * US dollars per credit: the price the service's public documentation shows ("Price seen: $0.0027
 * per credit"). Amounts shown with it are approximate: a plan's actual rate may differ.
 */
export const DOLLARS_PER_CREDIT = 0.0027;

export const revealsEmail = (reveal: Reveal) => reveal === "email" || reveal === "both";
export const revealsMobile = (reveal: Reveal) => reveal === "mobile" || reveal === "both";

/** Credits for delivering rows: per row, plus per revealed email and mobile that is present. AYCE: 0. */
export function contactCost(
  plan: Plan,
  reveal: Reveal,
  figures: { rows: number; withEmail: number; withMobile: number },
): number {
  if (plan === "AYCE") return 0;
  return (
    figures.rows * PRICE.perRow +
    (revealsEmail(reveal) ? figures.withEmail * PRICE.perRevealedEmail : 0) +
    (revealsMobile(reveal) ? figures.withMobile * PRICE.perRevealedMobile : 0)
  );
}

/** The most `rows` delivered rows can cost: every row found with every revealed email and mobile. */
export function maxContactCost(rows: number, reveal: Reveal, plan: Plan): number {
  const n = Math.max(0, rows);
  return contactCost(plan, reveal, { rows: n, withEmail: n, withMobile: n });
}

/** Definite verification answers (DELIVERABLE/UNDELIVERABLE in v1, Valid/Invalid in v2) cost; unknown ones do not. */
export function isDefiniteVerification(answer: string): boolean {
  return ["DELIVERABLE", "UNDELIVERABLE", "Valid", "Invalid"].includes(answer);
}

/** Credits for `definite` definite verification answers (both plans). */
export function verificationCost(definite: number): number {
  return Math.max(0, definite) * PRICE.perDefiniteVerification;
}

/** Credits for a company discover that answered `companies` results (AYCE: 0). */
export function discoverCost(plan: Plan, companies: number): number {
  return plan === "AYCE" ? 0 : Math.max(0, companies) * PRICE.perDiscoveredCompany;
}
