import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError } from "../../api/api-error";
import { AUDIENCES_QUERY_KEY, audienceErrorText, createAudience } from "../../api/audiences";
import { useSession } from "../../api/session";
import {
  type LeftBehind,
  leftBehind,
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

export interface BrowserAudiencesState {
  /** What the move just did (this load only); null when there is nothing to say. */
  report: { text: string; tone: "info" | "error" } | null;
  /** What stayed in this browser after the move (every load, until it is gone). */
  left: LeftBehind | null;
}

const readLeftBehind = () => {
  const storage = browserStorage();
  return storage ? leftBehind(storage) : null;
};

/**
 * Moves the audiences saved in this browser by earlier versions to the server, once (see
 * lib/browser-audiences.ts), says what happened, and what stayed behind. Only a 422 (the server
 * refused that entry) is a definite answer; anything else stops the move until the next load.
 */
export function useMoveBrowserAudiences(): BrowserAudiencesState {
  const session = useSession();
  const queryClient = useQueryClient();
  const [report, setReport] = useState<MoveReport | null>(null);
  const [left, setLeft] = useState<LeftBehind | null>(readLeftBehind);
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
      if (!live) return;
      setReport(result);
      setLeft(readLeftBehind());
    });
    return () => {
      live = false;
    };
  }, [ready, person, queryClient]);

  const text = report ? moveReportText(report) : null;
  return {
    report: report && text ? { text, tone: report.interrupted ? "error" : "info" } : null,
    left,
  };
}
