import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError } from "../../api/api-error";
import { AUDIENCES_QUERY_KEY, audienceErrorText, createAudience } from "../../api/audiences";
import { useSession } from "../../api/session";
import {
  type MoveReport,
  moveBrowserAudiences,
  moveReportText,
  needsMove,
} from "../../lib/browser-audiences";
import { browserStorage } from "../../lib/store";

/**
 * The move under way: one at a time, however many panels mount (and React's development double
 * effects). Once it ends, a later mount tries again only if it did not finish (nothing marked).
 */
let running: Promise<MoveReport | null> | null = null;

/**
 * Moves the audiences saved in this browser by earlier versions to the server, once (see
 * lib/browser-audiences.ts), and says what happened. Only a 422 (the server refused that entry) is
 * a definite answer; anything else stops the move until the next load.
 */
export function useMoveBrowserAudiences(): { text: string; tone: "info" | "error" } | null {
  const session = useSession();
  const queryClient = useQueryClient();
  const [report, setReport] = useState<MoveReport | null>(null);
  const person = session.data?.user ?? null;
  const ready = session.data !== undefined;

  useEffect(() => {
    const storage = browserStorage();
    if (!ready || !storage || (!running && !needsMove(storage))) return;
    let live = true;
    running ??= moveBrowserAudiences(storage, {
      create: (body) => createAudience(body),
      retryLater: (error) => !(error instanceof ApiError && error.kind === "validation"),
      reason: audienceErrorText,
      person,
    }).finally(() => {
      running = null;
      void queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY });
    });
    void running?.then((result) => {
      if (live) setReport(result);
    });
    return () => {
      live = false;
    };
  }, [ready, person, queryClient]);

  if (!report) return null;
  const text = moveReportText(report);
  if (!text) return null;
  return { text, tone: report.interrupted || report.refused.length > 0 ? "error" : "info" };
}
