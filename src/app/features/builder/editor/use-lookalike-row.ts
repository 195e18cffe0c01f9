import { useCallback, useEffect, useState } from "react";
import { isDomain, normaliseDomain } from "../../../../contract/domains";
import type { LookalikeNode } from "../../../../contract/filter";
import type { MatchLevel } from "../../../../contract/inferred";
import { useDebouncedValue } from "../../../lib/use-debounced-value";
import { readableError } from "../../../ui/status";
import { type CompanyRef, useCompanyLookup } from "../api/company-lookup";
import { useDispatch } from "./editor-context";

export type LookalikeBy = "domain" | "rbidOrg" | "name";

/** How long typing must pause before the company is looked up. */
export const LOOKUP_DEBOUNCE_MS = 400;

export type LookupState =
  | { kind: "empty" }
  | { kind: "waiting" }
  | { kind: "found"; text: string; name: string; industry: string | null }
  | { kind: "missing"; text: string }
  | { kind: "error"; text: string };

/**
 * Everything a lookalike row does, apart from how it looks: domain or company ID (a toggle that
 * carries the typed text across), and the named company, looked up once typing pauses.
 */
export function useLookalikeRow(node: LookalikeNode) {
  const dispatch = useDispatch();
  const id = node.id ?? "";
  const domain = node.domain ?? "";
  const rbidOrg = node.rbidOrg ?? "";
  const [chosen, setChosen] = useState<LookalikeBy>(
    rbidOrg.trim() !== "" && domain.trim() === "" ? "rbidOrg" : "domain",
  );
  const by: LookalikeBy = domain.trim() !== "" ? "domain" : rbidOrg.trim() !== "" ? "rbidOrg" : chosen;
  const text = by === "domain" ? domain : rbidOrg;

  const setText = useCallback(
    (next: string) =>
      dispatch.update(id, by === "domain" ? { domain: next } : { rbidOrg: next }, `${id}:${by}`),
    [dispatch, id, by],
  );
  const setBy = useCallback(
    (next: LookalikeBy) => {
      setChosen(next);
      if (next === by || text === "") return;
      // A name is looked for apart from the rule, which names the company once one is chosen.
      if (next === "name") dispatch.update(id, { domain: "", rbidOrg: "" });
      else
        dispatch.update(
          id,
          next === "domain" ? { domain: text, rbidOrg: "" } : { rbidOrg: text, domain: "" },
        );
    },
    [dispatch, id, by, text],
  );
  /** A company chosen by name: the rule names it by its ID. */
  const chooseCompany = useCallback(
    (rbid: string) => {
      setChosen("rbidOrg");
      dispatch.update(id, { rbidOrg: rbid, domain: "" });
    },
    [dispatch, id],
  );
  const setLevel = useCallback(
    (match: MatchLevel) => dispatch.update(id, { match, maxDistance: undefined }),
    [dispatch, id],
  );
  const toggleNot = useCallback(() => dispatch.run("negate", id), [dispatch, id]);
  /** A web address typed or pasted for the domain, read as the domain once the field is left. */
  const tidyDomain = useCallback(() => {
    if (by !== "domain") return;
    const clean = normaliseDomain(domain);
    if (clean !== domain && isDomain(clean)) dispatch.update(id, { domain: clean });
  }, [dispatch, id, by, domain]);

  const wanted = `${by}\u0000${text.trim()}`;
  const settled = useDebouncedValue(wanted, LOOKUP_DEBOUNCE_MS);
  const [settledBy, settledText = ""] = settled.split("\u0000") as [LookalikeBy, string?];
  const ref: CompanyRef | null =
    settledText === "" || settledBy === "name"
      ? null
      : settledBy === "domain"
        ? { by: "domain", domain: settledText }
        : { by: "rbidOrg", rbidOrg: settledText };
  const lookup = useCompanyLookup(ref);

  let state: LookupState;
  if (text.trim() === "" || by === "name") state = { kind: "empty" };
  else if (settled !== wanted || lookup.isPending) state = { kind: "waiting" };
  else if (lookup.isError)
    state = { kind: "error", text: `Could not check this company: ${readableError(lookup.error)}` };
  else if (lookup.data?.found)
    state = {
      kind: "found",
      text: `Like: ${lookup.data.name}${lookup.data.industry ? ` — ${lookup.data.industry}` : ""}`,
      name: lookup.data.name,
      industry: lookup.data.industry ?? null,
    };
  else state = { kind: "missing", text: lookup.data?.reason ?? "No such company" };

  // A company the service does not know is this rule's problem: the count leaves the rule out.
  const unknown =
    state.kind === "missing"
      ? `${by === "domain" ? "No company has the domain" : "No company has the ID"} “${settledText}”.`
      : null;
  useEffect(() => {
    dispatch.reportUnknown(id, unknown);
  }, [dispatch, id, unknown]);
  useEffect(() => () => dispatch.reportUnknown(id, null), [dispatch, id]);

  return { id, by, text, setText, setBy, chooseCompany, setLevel, toggleNot, tidyDomain, lookup: state };
}
