// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { emptyTree } from "../../../../src/app/lib/filter/tree";
import { createOpenAudienceStore, type OpenAudience } from "../../../../src/app/lib/open-audience";
import {
  closeInThisTab,
  REMEMBER_DEBOUNCE_MS,
  type RememberDeps,
  rememberOnServer,
  reopenDecision,
} from "../../../../src/app/lib/remembered-audience";
import { memoryStorage } from "../../../../src/app/lib/store";
import { canonicalKey } from "../../../../src/contract/canonical";
import type { GroupNode } from "../../../../src/contract/filter";
import type { OpenAudienceAnswer } from "../../../../src/contract/team";

const country = (value: string): GroupNode => ({
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value }],
});
const GERMANY = country("Germany");
const FRANCE = country("France");
const SPAIN = country("Spain");

const record = (overrides: Partial<OpenAudience> = {}): OpenAudience => ({
  id: "aud_123456",
  name: "Directors in Germany",
  version: 2,
  savedKey: canonicalKey(GERMANY),
  workingKey: canonicalKey(GERMANY),
  owner: "ana",
  shared: true,
  updatedBy: "ana",
  updatedAt: "2026-11-25T12:00:00.000Z",
  ...overrides,
});

function fakeServer() {
  const calls: string[] = [];
  let failing = false;
  const deps: RememberDeps = {
    put: async (body, { keepalive }) => {
      calls.push(
        `PUT ${body.id} v${body.version} ${body.workingKey === canonicalKey(GERMANY) ? "germany" : body.workingKey === canonicalKey(FRANCE) ? "france" : "other"}${keepalive ? " keepalive" : ""}`,
      );
      if (failing) throw new Error("down");
    },
    remove: async ({ keepalive }) => {
      calls.push(`DELETE${keepalive ? " keepalive" : ""}`);
      if (failing) throw new Error("down");
    },
  };
  return {
    calls,
    deps,
    fail: (value: boolean) => {
      failing = value;
    },
  };
}

describe("the open audience, remembered on the server", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends opening and closing at once, edits after a pause, and nothing at the start", async () => {
    const store = createOpenAudienceStore(() => storage);
    const storage = memoryStorage();
    store.set(record());
    const server = fakeServer();
    const stop = rememberOnServer(store, server.deps);
    // What the tab held at the start is not news (and a tab with nothing open erases nothing).
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.calls).toEqual([]);

    store.set(record({ workingKey: canonicalKey(FRANCE) }));
    store.set(record({ workingKey: canonicalKey(SPAIN) }));
    store.set(record({ workingKey: canonicalKey(FRANCE) }));
    await vi.advanceTimersByTimeAsync(REMEMBER_DEBOUNCE_MS - 1);
    expect(server.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.calls).toEqual(["PUT aud_123456 v2 france"]);

    store.set(record({ id: "aud_other1", version: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(server.calls.at(-1)).toBe("PUT aud_other1 v1 germany");
    store.set(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(server.calls.at(-1)).toBe("DELETE");
    stop();
    store.set(record());
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.calls).toHaveLength(3);
  });

  it("closing in this tab only (signing out) tells the server nothing", async () => {
    const storage = memoryStorage();
    const store = createOpenAudienceStore(() => storage);
    const server = fakeServer();
    const stop = rememberOnServer(store, server.deps);
    store.set(record());
    await vi.advanceTimersByTimeAsync(0);
    store.set(record({ workingKey: canonicalKey(FRANCE) }));
    closeInThisTab(store);
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.get()).toBeNull();
    // The pending edit is dropped with it: the next person in this tab sends nothing of it.
    expect(server.calls).toEqual(["PUT aud_123456 v2 germany"]);
    stop();
  });

  it("sends the last edit as the page goes away, and again after a failed send", async () => {
    const storage = memoryStorage();
    const store = createOpenAudienceStore(() => storage);
    const server = fakeServer();
    const stop = rememberOnServer(store, server.deps);
    server.fail(true);
    store.set(record());
    await vi.advanceTimersByTimeAsync(0);
    server.fail(false);
    // The same state again is sent again: the failed send is not taken as known.
    store.set(record({ workingKey: canonicalKey(FRANCE) }));
    store.set(record());
    await vi.advanceTimersByTimeAsync(REMEMBER_DEBOUNCE_MS);
    expect(server.calls).toEqual(["PUT aud_123456 v2 germany", "PUT aud_123456 v2 germany"]);

    store.set(record({ workingKey: canonicalKey(FRANCE) }));
    window.dispatchEvent(new Event("pagehide"));
    expect(server.calls.at(-1)).toBe("PUT aud_123456 v2 france keepalive");
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.calls).toHaveLength(3);
    stop();
  });
});

describe("what a tab with nothing open does with what the server remembers", () => {
  const remembered = (workingKey: string): NonNullable<OpenAudienceAnswer["open"]> => ({
    audience: {
      id: "aud_123456",
      name: "Directors in Germany",
      filter: FRANCE,
      owner: "ana",
      shared: true,
      lastCount: 10,
      version: 3,
      createdAt: "2026-11-25T10:00:00.000Z",
      createdBy: "ana",
      updatedAt: "2026-11-26T10:00:00.000Z",
      updatedBy: "bo",
      canEdit: true,
      canManage: false,
    },
    opened: {
      version: 2,
      name: "Directors in Germany",
      filter: GERMANY,
      shared: true,
      lastCount: 9,
      savedAt: "2026-11-25T12:00:00.000Z",
      savedBy: "ana",
      restoredFrom: null,
    },
    workingKey,
  });

  it("reopens it at the version the person's edits start from when the tree is its own", () => {
    const saved = reopenDecision(remembered(canonicalKey(GERMANY)), GERMANY);
    expect(saved).toEqual({ kind: "reopen", open: record() });
    // Their unsaved edits, kept on this device: still that audience, at version 2 (a Save meets
    // Bo's version 3 as a conflict).
    const edited = reopenDecision(remembered(canonicalKey(SPAIN)), SPAIN);
    expect(edited).toEqual({ kind: "reopen", open: record({ workingKey: canonicalKey(SPAIN) }) });
  });

  it("loads the opened version's tree where nothing is being built, and leaves another tree alone", () => {
    expect(reopenDecision(remembered(canonicalKey(SPAIN)), emptyTree())).toEqual({
      kind: "load",
      open: record(),
      tree: GERMANY,
    });
    // The latest version's tree is not the person's: theirs started from version 2.
    expect(reopenDecision(remembered(canonicalKey(SPAIN)), FRANCE)).toEqual({ kind: "none" });
    expect(reopenDecision(null, GERMANY)).toEqual({ kind: "none" });
  });
});
