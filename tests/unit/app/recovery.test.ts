import {
  focusManager,
  MutationObserver,
  onlineManager,
  QueryClient,
  QueryObserver,
} from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, apiErrorFromAnswer } from "../../../src/app/api/api-error";
import { CHECK_EVERY_MS, MAX_ROUND_GAP_MS, watchRecovery } from "../../../src/app/api/recovery";
import { createQueryClient } from "../../../src/app/query-client";

/**
 * The app's recovery after an outage (src/app/api/recovery.ts), on fake time: a read that failed
 * for want of the server is asked again within about a second of the server saying it is back, with
 * one question a second at most while it is down, and nothing at all while no read waits.
 */

const unreachable = () =>
  new ApiError({ kind: "network", status: 0, message: "The server could not be reached." });

/** The server as the health check sees it: not answering, answering with the service down, or up. */
type ServerState = "unreachable" | "service-down" | "up";

function world() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  let state: ServerState = "unreachable";
  const check = vi.fn(async () => {
    if (state === "unreachable") throw unreachable();
    return state === "up";
  });
  const stop = watchRecovery(client, { check });
  /** A read shown on a screen: an observer keeps it active. */
  const read = (key: string, answer: () => Promise<number>) => {
    const queryFn = vi.fn(answer);
    const observer = new QueryObserver(client, { queryKey: [key], queryFn });
    const unsubscribe = observer.subscribe(() => {});
    return { queryFn, observer, unsubscribe };
  };
  return {
    client,
    check,
    read,
    stop,
    set(next: ServerState) {
      state = next;
    },
    get state() {
      return state;
    },
  };
}

/** Answers 42 while the server is "up", and otherwise fails as a read does then. */
function served(w: { state: ServerState }, failure: () => Error = unreachable) {
  return async () => {
    if (w.state !== "up") throw failure();
    return 42;
  };
}

const seconds = (n: number) => vi.advanceTimersByTimeAsync(n * 1000);

/** Fake milliseconds until `done()` holds (10 ms steps, 10 s at most). */
async function msUntil(done: () => boolean): Promise<number> {
  const from = Date.now();
  while (!done() && Date.now() - from < 10_000) await vi.advanceTimersByTimeAsync(10);
  expect(done()).toBe(true);
  return Date.now() - from;
}

const stops: (() => void)[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  focusManager.setFocused(undefined);
  onlineManager.setOnline(true);
  vi.useRealTimers();
});

function started() {
  const w = world();
  stops.push(w.stop);
  return w;
}

describe("recovery after an outage", () => {
  it("asks nothing while no read is in error", async () => {
    const w = started();
    w.set("up");
    const count = w.read("count", served(w));
    await seconds(30);
    expect(count.observer.getCurrentResult().data).toBe(42);
    expect(w.check).not.toHaveBeenCalled();
    expect(count.queryFn).toHaveBeenCalledTimes(1);
  });

  it("asks once a second while the server is unreachable, sends no read, and reads again as soon as it is back", async () => {
    const w = started();
    const count = w.read("count", served(w));
    await seconds(0.1);
    expect(count.observer.getCurrentResult().status).toBe("error");

    await seconds(20);
    // One question a second, no more; the read itself is not sent again while nothing answers.
    expect(w.check.mock.calls.length).toBeGreaterThanOrEqual(19);
    expect(w.check.mock.calls.length).toBeLessThanOrEqual(20);
    expect(count.queryFn).toHaveBeenCalledTimes(1);

    w.set("up");
    const ms = await msUntil(() => count.observer.getCurrentResult().data === 42);
    expect(ms).toBeLessThanOrEqual(CHECK_EVERY_MS + 10);
    expect(count.queryFn).toHaveBeenCalledTimes(2);

    // Nothing waits any more: no question is asked.
    const asked = w.check.mock.calls.length;
    await seconds(30);
    expect(w.check.mock.calls.length).toBe(asked);
  });

  it("waits for the data service too: the proxy answering is not enough", async () => {
    const w = started();
    w.set("service-down");
    const count = w.read(
      "count",
      served(w, () => apiErrorFromAnswer(502, { detail: "The data service could not be reached." })),
    );
    await seconds(10);
    expect(count.queryFn).toHaveBeenCalledTimes(1);
    expect(w.check.mock.calls.length).toBeGreaterThanOrEqual(9);

    w.set("up");
    await seconds(1);
    expect(count.observer.getCurrentResult().data).toBe(42);
  });

  it("brings back every read on screen that waited, 504s included, in one go", async () => {
    const w = started();
    const count = w.read("count", served(w));
    const insights = w.read(
      "insights",
      served(w, () => apiErrorFromAnswer(504, { detail: "slow" })),
    );
    const sample = w.read(
      "sample",
      served(w, () => apiErrorFromAnswer(503, { detail: "busy" })),
    );
    await seconds(5);
    w.set("up");
    await seconds(1);
    for (const read of [count, insights, sample]) {
      expect(read.observer.getCurrentResult().data).toBe(42);
      expect(read.queryFn).toHaveBeenCalledTimes(2);
    }
  });

  it("never waits out a refusal or a rate limit: a 4xx is not asked again, and nothing is checked", async () => {
    const w = started();
    w.set("up");
    const reads = [422, 403, 404, 429].map((status) =>
      w.read(`refused-${status}`, async () => {
        throw apiErrorFromAnswer(status, { detail: "no" });
      }),
    );
    await seconds(30);
    expect(w.check).not.toHaveBeenCalled();
    for (const read of reads) expect(read.queryFn).toHaveBeenCalledTimes(1);
  });

  it("leaves alone a failed read no screen shows any more", async () => {
    const w = started();
    const count = w.read("count", served(w));
    await seconds(0.1);
    count.unsubscribe();
    await seconds(10);
    expect(w.check).not.toHaveBeenCalled();
    w.set("up");
    await seconds(5);
    expect(count.queryFn).toHaveBeenCalledTimes(1);
  });

  it("never sends a mutation again (spends are mutations or their own, never queries)", async () => {
    const w = started();
    const mutationFn = vi.fn(async () => {
      throw unreachable();
    });
    const buy = new MutationObserver(w.client, { mutationFn });
    await buy.mutate(undefined).catch(() => {});
    await seconds(5);
    w.set("up");
    await seconds(10);
    expect(mutationFn).toHaveBeenCalledTimes(1);
    expect(w.check).not.toHaveBeenCalled();
  });

  it("asks one question at a time: a check that hangs is not joined by more", async () => {
    const w = started();
    let answer: (up: boolean) => void = () => {};
    w.check.mockImplementation(() => new Promise<boolean>((resolve) => (answer = resolve)));
    const count = w.read("count", served(w));
    await seconds(10);
    expect(w.check).toHaveBeenCalledTimes(1);
    w.set("up");
    answer(true);
    await seconds(0.1);
    expect(count.observer.getCurrentResult().data).toBe(42);
  });

  it("starts questions a second apart even when the proxy holds each one for its probe", async () => {
    const w = started();
    const starts: number[] = [];
    w.check.mockImplementation(async () => {
      starts.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 900));
      return false;
    });
    w.read("count", served(w));
    await seconds(20);
    expect(starts.length).toBeGreaterThanOrEqual(18);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(CHECK_EVERY_MS);
  });

  it("backs off when reads fail again although the server says it is up, and never loops", async () => {
    const w = started();
    w.set("up");
    // A key the service refuses: the proxy and the service are up, the read fails every time (502).
    const count = w.read("count", async () => {
      throw apiErrorFromAnswer(502, { detail: "The data service refused this proxy's API key." });
    });
    await seconds(60);
    // Rounds at 1, 2, 4, 8, 16 and 32 s after the first failure: the first try and six more.
    expect(count.queryFn.mock.calls.length).toBeLessThanOrEqual(7);
    expect(w.check.mock.calls.length).toBeLessThanOrEqual(60);
    const before = count.queryFn.mock.calls.length;
    await seconds(120);
    // Then once every MAX_ROUND_GAP_MS at most.
    expect(count.queryFn.mock.calls.length - before).toBeLessThanOrEqual(
      Math.ceil(120_000 / MAX_ROUND_GAP_MS),
    );
  });

  it("after such a back-off, a real outage and comeback is acted on at once", async () => {
    const w = started();
    w.set("up");
    let failing = true;
    const count = w.read("count", async () => {
      if (failing || w.state !== "up") throw apiErrorFromAnswer(502, { detail: "half there" });
      return 42;
    });
    await seconds(40);
    w.set("unreachable");
    failing = false;
    await seconds(5);
    w.set("up");
    await seconds(1.1);
    expect(count.observer.getCurrentResult().data).toBe(42);
  });

  it("asks nothing while the tab is hidden or the browser offline, and again once it is back", async () => {
    const w = started();
    focusManager.setFocused(false);
    const count = w.read("count", served(w));
    await seconds(10);
    expect(w.check).not.toHaveBeenCalled();
    focusManager.setFocused(true);
    await seconds(3);
    expect(w.check.mock.calls.length).toBeGreaterThan(0);

    onlineManager.setOnline(false);
    const asked = w.check.mock.calls.length;
    await seconds(10);
    expect(w.check.mock.calls.length).toBe(asked);
    onlineManager.setOnline(true);
    w.set("up");
    await seconds(2);
    expect(count.observer.getCurrentResult().data).toBe(42);
  });

  it("with the app's own client: its retries (1 s, 2 s) run first, then the server is asked", async () => {
    const client = createQueryClient();
    let up = false;
    const check = vi.fn(async () => {
      if (!up) throw unreachable();
      return true;
    });
    stops.push(watchRecovery(client, { check }));
    const queryFn = vi.fn(async () => {
      if (!up) throw unreachable();
      return 42;
    });
    const observer = new QueryObserver(client, { queryKey: ["count"], queryFn });
    stops.push(observer.subscribe(() => {}));
    await seconds(2.9);
    // Still retrying (tries at 0, 1 and 3 s): nothing asked of the server yet.
    expect(queryFn).toHaveBeenCalledTimes(2);
    expect(check).not.toHaveBeenCalled();
    await seconds(40);
    expect(observer.getCurrentResult().status).toBe("error");
    expect(queryFn).toHaveBeenCalledTimes(3);
    expect(check.mock.calls.length).toBeGreaterThanOrEqual(38);
    up = true;
    const ms = await msUntil(() => observer.getCurrentResult().data === 42);
    expect(ms).toBeLessThanOrEqual(CHECK_EVERY_MS + 10);
  });

  it("stops when told to", async () => {
    const w = started();
    w.read("count", served(w));
    await seconds(3);
    w.stop();
    const asked = w.check.mock.calls.length;
    await seconds(10);
    expect(w.check.mock.calls.length).toBe(asked);
  });
});
