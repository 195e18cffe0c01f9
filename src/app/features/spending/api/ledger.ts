import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { ledgerAnswer } from "../../../../contract/ledger";
import { getJson } from "../../../api/client";
import { SPENDING_QUERY_KEY } from "../../../api/spending";

/**
 * The ledger (`GET /api/ledger?person=&month=`): admins read everyone's, others their own. The
 * same filters give the CSV (`GET /api/ledger.csv`), fetched by the app like every download (it
 * must carry the x-csrf header, which a plain link cannot).
 */
export interface LedgerFilters {
  /** A person's name, or "" for everyone the caller may read. */
  person: string;
  /** `YYYY-MM`, or "" for every month. */
  month: string;
}

export function ledgerSearch({ person, month }: LedgerFilters): Record<string, string> {
  const search: Record<string, string> = {};
  if (person) search.person = person;
  if (month) search.month = month;
  return search;
}

/** `ledger.csv?person=bo&month=2026-11` (no empty parameters), under /api. */
export function ledgerCsvPath(filters: LedgerFilters): string {
  const query = new URLSearchParams(ledgerSearch(filters)).toString();
  return query ? `ledger.csv?${query}` : "ledger.csv";
}

export const ledgerQueryOptions = (filters: LedgerFilters) =>
  queryOptions({
    queryKey: [...SPENDING_QUERY_KEY, "ledger", filters.person, filters.month],
    queryFn: ({ signal }) => getJson("ledger", ledgerAnswer, { searchParams: ledgerSearch(filters), signal }),
    // A change of filter keeps the last table on screen until the new one arrives.
    placeholderData: keepPreviousData,
  });

export function useLedger(filters: LedgerFilters) {
  return useQuery(ledgerQueryOptions(filters));
}
