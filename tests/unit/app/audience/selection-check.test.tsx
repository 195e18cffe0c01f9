// @vitest-environment jsdom

import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { findInAudience } from "../../../../src/app/api/in-audience";
import type { SelectionSnapshot } from "../../../../src/app/lib/selection";
import {
  checkedSelection,
  leftSentence,
  selectionBlocked,
  splitSelection,
  useCheckedSelection,
} from "../../../../src/app/lib/selection-check";
import { createQueryClient } from "../../../../src/app/query-client";
import type { GroupNode } from "../../../../src/contract/filter";
import { installAudienceOf, installFakeFetch, json, levelIs, type SentRequest } from "./harness";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The ids a request's filter narrows to (`... AND RBID_PAO in [ids]`). */
function askedIds(request: SentRequest): string[] {
  const filter = (request.body as { filter: GroupNode }).filter;
  const last = filter.children.at(-1);
  return last?.type === "condition" ? (last.valueList ?? []) : [];
}

const audienceOf = (members: readonly string[]) => installAudienceOf(members);

const IDS = ["p1", "p2", "p3", "p4", "p5"];

describe("the rule's words and split", () => {
  it("splits the selection in the order ticked", () => {
    expect(splitSelection(IDS, ["p4", "p2", "elsewhere"])).toEqual({
      kept: ["p2", "p4"],
      left: ["p1", "p3", "p5"],
    });
    expect(checkedSelection(IDS, ["p1"])).toMatchObject({ state: "checked", kept: ["p1"] });
    expect(checkedSelection([])).toMatchObject({ state: "none", kept: [], left: [] });
  });

  it("says how many left and how many will be bought", () => {
    expect(leftSentence(5, 4)).toBe(
      "4 of 5 selected people left the audience after your edits; 1 will be bought.",
    );
    expect(leftSentence(5, 5)).toBe(
      "5 of 5 selected people left the audience after your edits; no one will be bought.",
    );
    expect(leftSentence(1, 1)).toBe(
      "The 1 selected person left the audience after your edits; no one will be bought.",
    );
    expect(leftSentence(1200, 3)).toBe(
      "3 of 1,200 selected people left the audience after your edits; 1,197 will be bought.",
    );
    expect(leftSentence(5, 0)).toBeNull();
  });
});

describe("selectionBlocked: nothing of the selection is bought until it is checked", () => {
  const instead = "Paste a list.";
  it("says why, or nothing when the people still in it can be bought", () => {
    expect(selectionBlocked(checkedSelection([]), instead)).toBe("No one is selected. Paste a list.");
    expect(selectionBlocked(checkedSelection(IDS, []), instead)).toBe(
      "5 of 5 selected people left the audience after your edits; no one will be bought. Paste a list.",
    );
    const checking = { ...checkedSelection(IDS), state: "checking" as const, kept: [], problem: "Checking…" };
    expect(selectionBlocked(checking, instead)).toBe("Checking…");
    expect(selectionBlocked(checkedSelection(IDS, ["p1"]), instead)).toBeNull();
  });
});

describe("findInAudience: free calls only", () => {
  it("all still in, or none: one count, no View (no sample budget spent)", async () => {
    const client = createQueryClient();
    const sent = audienceOf(IDS);
    expect(await findInAudience(client, levelIs("VP"), IDS)).toEqual(IDS);
    const none = audienceOf([]);
    expect(await findInAudience(createQueryClient(), levelIs("VP"), IDS)).toEqual([]);
    expect(sent.map((r) => r.path)).toEqual(["/api/v2/contact/count"]);
    expect(none.map((r) => r.path)).toEqual(["/api/v2/contact/count"]);
  });

  it("some left: the count, then one View of the ids, narrowed to the audience; never a spend", async () => {
    const sent = audienceOf(["p2"]);
    expect(await findInAudience(createQueryClient(), levelIs("VP"), IDS)).toEqual(["p2"]);
    expect(sent.map((r) => r.path)).toEqual(["/api/v2/contact/count", "/api/v2/contact/view"]);
    const view = sent[1]!.body as { filter: GroupNode; columns: string[]; limit: number };
    expect(view.columns).toEqual(["RBID_PAO"]);
    expect(view.limit).toBe(100);
    expect(JSON.stringify(view.filter.children[0])).toContain(
      '"column":"JOB_LEVEL_PER","operator":"eq","value":"VP"',
    );
    expect(askedIds(sent[1]!).sort()).toEqual([...IDS].sort());
    expect(sent.every((r) => !r.headers.has("idempotency-key"))).toBe(true);
  });

  it("an approximate count settles nothing", async () => {
    installFakeFetch(() => json({ count: 5, mode: "fast" }));
    await expect(findInAudience(createQueryClient(), levelIs("VP"), IDS)).rejects.toThrow(/approximate/);
  });
});

describe("useCheckedSelection", () => {
  const snapshot = (ids: readonly string[]): SelectionSnapshot => ({
    key: "saved:a",
    ids,
    has: new Set(ids),
    names: { p1: "Ada" },
    refused: 0,
  });
  const wrapper = () => {
    const client = createQueryClient();
    return ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    );
  };

  it("checks the selection against the audience: kept and left, with the names", async () => {
    audienceOf(["p3"]);
    const selection = snapshot(IDS);
    const { result } = renderHook(() => useCheckedSelection(levelIs("VP"), true, selection), {
      wrapper: wrapper(),
    });
    expect(result.current.state).toBe("checking");
    expect(result.current.kept).toEqual([]);
    await waitFor(() => expect(result.current.state).toBe("checked"));
    expect(result.current).toMatchObject({
      kept: ["p3"],
      left: ["p1", "p2", "p4", "p5"],
      names: { p1: "Ada" },
    });
  });

  it("an unfinished audience, or a failed check, buys no one of the selection and says why", async () => {
    const sent = audienceOf(IDS);
    const selection = snapshot(IDS);
    const unfinished = renderHook(() => useCheckedSelection(levelIs("VP"), false, selection), {
      wrapper: wrapper(),
    });
    expect(unfinished.result.current).toMatchObject({ state: "unfinished", kept: [] });
    expect(unfinished.result.current.problem).toMatch(/once its rules are finished/);
    expect(sent).toHaveLength(0);

    installFakeFetch(() => json({ detail: "The data service is busy." }, { status: 503 }));
    const failed = renderHook(() => useCheckedSelection(levelIs("VP"), true, selection), {
      wrapper: wrapper(),
    });
    await waitFor(() => expect(failed.result.current.state).toBe("failed"), { timeout: 8000 });
    expect(failed.result.current.kept).toEqual([]);
    expect(failed.result.current.problem).toMatch(/could not be checked, so they cannot be bought yet/);
    expect(failed.result.current.recheck).toBeTypeOf("function");
  }, 15_000);
});
