import { focusManager, onlineManager, type Query, type QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api-error";

/**
 * Screens come back by themselves when the server does. React Query retries a failed read twice
 * (query-client.ts), then leaves it in error until something asks again: a click on "Try again",
 * the window regaining focus, or the browser coming back online, which it never left when only the
 * server was down. So a screen could say "could not be counted" long after the server was back.
 *
 * While a read shown on screen failed for want of the server (no answer, a timeout, a 5xx), the
 * proxy is asked whether it and the data service answer (`GET /api/health`, free), one question at
 * a time, at most one a second; as soon as it says so, those reads are asked again. Nothing is asked while
 * no read waits, while the browser is offline (React Query asks again itself on reconnecting) or
 * while the tab is hidden (it does on focus). Only reads: a spend is never a query, and is never
 * sent again by itself (lib/spend.ts). A refusal (a 4xx) is not waited out, nor a rate limit: a
 * 429 waits for the person, as its message says.
 */

/**
 * Questions to the server start at least this far apart. The proxy may hold one up to a second (it
 * answers at its next probe of the service), so the next may start as soon as that one ends.
 */
export const CHECK_EVERY_MS = 1000;
/**
 * Reads asked again while the server said it was up, that failed again (a half-working service, a
 * key it refuses): each further time waits twice as long, up to this. A "down" answer ends it.
 */
export const MAX_ROUND_GAP_MS = 30_000;

/** A read on screen whose last try failed for want of the server, React Query's own retries done. */
export function waitsForServer(query: Query): boolean {
  const { status, fetchStatus, error } = query.state;
  return (
    status === "error" &&
    fetchStatus === "idle" &&
    query.isActive() &&
    error instanceof ApiError &&
    error.transient
  );
}

export interface RecoveryOptions {
  /** True when the server answers and says the data service does; false or a throw otherwise. */
  check: () => Promise<boolean>;
}

/** Starts watching `client`'s reads; returns the function that stops it. */
export function watchRecovery(client: QueryClient, { check }: RecoveryOptions): () => void {
  const cache = client.getQueryCache();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let checking = false;
  let round: Promise<void> | null = null;
  let stopped = false;
  let lastAsked = Number.NEGATIVE_INFINITY;
  /** Rounds since the server last said "down" or nothing waited: each doubles the next gap. */
  let rounds = 0;
  let nextRoundAt = 0;

  const waiting = () => cache.findAll({ predicate: waitsForServer }).length > 0;
  const canAsk = () => onlineManager.isOnline() && focusManager.isFocused();

  const schedule = () => {
    if (stopped || timer !== undefined || checking) return;
    if (!waiting()) {
      if (!round) {
        rounds = 0;
        lastAsked = Number.NEGATIVE_INFINITY;
      }
      return;
    }
    // The read's own last try counts as the first question: the next one comes a second later.
    if (lastAsked === Number.NEGATIVE_INFINITY) lastAsked = Date.now();
    if (canAsk()) timer = setTimeout(() => void tick(), Math.max(0, lastAsked + CHECK_EVERY_MS - Date.now()));
  };

  const tick = async () => {
    timer = undefined;
    if (stopped || !waiting() || !canAsk()) return schedule();
    checking = true;
    lastAsked = Date.now();
    const up = await check().catch(() => false);
    checking = false;
    if (stopped) return;
    if (!up) {
      // Down, then up again: the server came back, and its first "up" is acted on at once.
      rounds = 0;
      nextRoundAt = 0;
    } else if (Date.now() >= nextRoundAt && !round) {
      nextRoundAt = Date.now() + Math.min(CHECK_EVERY_MS * 2 ** rounds, MAX_ROUND_GAP_MS);
      rounds++;
      round = client
        .refetchQueries({ predicate: waitsForServer, type: "active" }, { cancelRefetch: false })
        .finally(() => {
          round = null;
          schedule();
        });
    }
    schedule();
  };

  const unsubscribeCache = cache.subscribe((event) => {
    // A read failed for good, or a failed one is shown again (a screen opened anew).
    if ((event.type === "updated" && event.action.type === "error") || event.type === "observerAdded")
      schedule();
  });
  const unsubscribeFocus = focusManager.subscribe(schedule);
  const unsubscribeOnline = onlineManager.subscribe(schedule);
  schedule();

  return () => {
    stopped = true;
    clearTimeout(timer);
    unsubscribeCache();
    unsubscribeFocus();
    unsubscribeOnline();
  };
}
