/**
 * Company domains as people type and paste them (web addresses, email addresses, capitals) read
 * as the domains the data holds: `https://www.Acme.com/about` is `acme.com`. The sandbox reads a
 * lookalike's domain so, and the app cleans what people type so, before anything is sent.
 */

/** Labels of letters, digits and inner hyphens, at least two of them. */
export const DOMAIN_PATTERN =
  /^[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;

/** `https://www.Acme.com/about` -> `acme.com`; also `jane@acme.com`, `acme.com:443`, `"acme.com."`. */
export function normaliseDomain(text: string): string {
  return text
    .trim()
    .replace(/^["'<([]+|["'>)\]]+$/g, "")
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/^[^/?#@\s]+@/, "")
    .replace(/[/?#].*$/, "")
    .replace(/:\d*$/, "")
    .replace(/\.$/, "")
    .replace(/^www\d*\.(?=[^.]+\.)/, "");
}

export function isDomain(text: string): boolean {
  return DOMAIN_PATTERN.test(text);
}
