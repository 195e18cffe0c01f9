// @vitest-environment jsdom
import { act, renderHook } from "@testing-library/react";
import fc from "fast-check";
import LZString from "lz-string";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { formatPath } from "../../../../src/app/api/api-error";
import { emptyTree } from "../../../../src/app/lib/filter/tree";
import {
  decodeTreeFromUrl,
  encodeTreeForUrl,
  loadInitialTree,
  MAX_URL_PARAM_LENGTH,
  searchWithTreeParam,
  treeParamOf,
  URL_DEBOUNCE_MS,
  URL_PARAM,
  useWorkingTreePersistence,
  WORKING_TREE_KEY,
  writeWorkingTree,
} from "../../../../src/app/lib/working-tree";
import type { GroupNode } from "../../../../src/contract/filter";
import { strictFilterSchemas } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { nestedGroups, validFilterArb } from "../../../support/arbitraries/valid-filter";

/**
 * A tree as the app holds it: the strict schema's output (defaults applied), as JSON carries it.
 * (JSON, the wire format of every request, has no -0: the arbitraries' unread `value2: -0` is 0.)
 */
const parse = (raw: unknown) => JSON.parse(JSON.stringify(strictFilterSchemas.root.parse(raw))) as GroupNode;
const treeArb = validFilterArb().map(parse);
/** lz-string of any JSON, to hand-craft links. */
const rawLink = (value: unknown) => LZString.compressToEncodedURIComponent(JSON.stringify(value));

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
const DIRECTORS: GroupNode = {
  type: "group",
  op: "OR",
  negate: false,
  children: [
    { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "Director" },
    { type: "semantic", on: "title", text: "Head of Growth", negate: false, match: "similar" },
  ],
};

describe("the tree in the URL", () => {
  it("round trips every valid tree: decode(encode(t)) deep-equals t", () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        expect(decodeTreeFromUrl(encodeTreeForUrl(tree))).toEqual({ tree, unfinished: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("survives the trip through a real query string, other parameters kept", () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const search = searchWithTreeParam("?tab=sample&q=a+b%26c", encodeTreeForUrl(tree));
        const url = new URL(`https://example.test/builder${search}#top`);
        expect(url.searchParams.get("tab")).toBe("sample");
        expect(url.searchParams.get("q")).toBe("a b&c");
        const param = treeParamOf(url.search);
        expect(param).not.toBeNull();
        expect(decodeTreeFromUrl(param!)).toEqual({ tree, unfinished: [] });
      }),
      { numRuns: 100 },
    );
  });

  it("gives -0 back as 0 (JSON has no -0; the service could not tell them apart)", () => {
    const tree: GroupNode = {
      ...emptyTree(),
      children: [{ type: "condition", column: "FOUNDED_ORG", operator: "eq", value: -0 }],
    };
    expect(decodeTreeFromUrl(encodeTreeForUrl(tree))).toEqual({
      tree: { ...tree, children: [{ ...tree.children[0], value: 0 }] },
      unfinished: [],
    });
  });

  it("uses only characters that need no escaping in a query", () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        expect(encodeTreeForUrl(tree)).toMatch(/^[A-Za-z0-9+\-$]*$/);
      }),
      { numRuns: 100 },
    );
  });

  it("applies the contract's defaults to a hand-written link (as the schema would)", () => {
    fc.assert(
      fc.property(validFilterArb(), (raw) => {
        expect(decodeTreeFromUrl(rawLink(raw))).toEqual({ tree: parse(raw), unfinished: [] });
      }),
      { numRuns: 200 },
    );
  });

  it("keeps a tree whose rules are unfinished, saying what is missing, defaults applied alike", () => {
    const unfinished = { type: "condition", column: "FOUNDED_ORG", operator: "gt" } as const;
    fc.assert(
      fc.property(validFilterArb(), (raw) => {
        const children = [...(raw.children ?? []), unfinished];
        const decoded = decodeTreeFromUrl(rawLink({ ...raw, children }));
        const expected = parse(raw);
        expect(decoded).toEqual({
          tree: { ...expected, children: [...expected.children, unfinished] },
          unfinished: [`rule ${children.length}, its value: Required, but missing`],
        });
      }),
      { numRuns: 200 },
    );
  });

  it("refuses what it cannot read, with a sentence and never a throw", () => {
    const cases: [string, RegExp][] = [
      ["", /holds no audience/],
      ["not-a-link", /damaged/],
      [encodeTreeForUrl(GERMANY).slice(0, 20), /damaged|not valid/],
      [LZString.compressToEncodedURIComponent("{not json"), /damaged/],
      [rawLink([1, 2]), /not valid: Expected a filter group/],
      [rawLink({ ...GERMANY, colour: "red" }), /not valid: the filter, “colour”: Unknown field: remove it/],
      [
        rawLink({ type: "condition", column: "CITY_PER", operator: "eq", value: "x" }),
        /not valid: The top of a filter must be a group/,
      ],
      [
        rawLink({ ...GERMANY, children: [{ type: "rule" }] }),
        /rule 1, its kind: Unknown node type: use 'condition', 'group', 'semantic' or 'lookalike'/,
      ],
      [rawLink(nestedGroups(MAX_FILTER_DEPTH + 5)), /nests \d+ levels deep; at most 32 are allowed/],
      ["x".repeat(300_000), /too long/],
    ];
    for (const [text, message] of cases) {
      const decoded = decodeTreeFromUrl(text);
      expect(decoded, text.slice(0, 40)).toEqual({ error: expect.stringMatching(message) });
    }
  });

  it("keeps the order and spelling of the other parameters; removes `a` for null", () => {
    expect(searchWithTreeParam("?x=1&a=OLD&y=2", "NEW")).toBe("?x=1&y=2&a=NEW");
    expect(searchWithTreeParam("?x=1&a=OLD", null)).toBe("?x=1");
    expect(searchWithTreeParam("?a=OLD", null)).toBe("");
    expect(searchWithTreeParam("", "N4+$-")).toBe("?a=N4+$-");
    expect(treeParamOf("?a=N4 $-")).toBe("N4+$-");
    expect(treeParamOf("?b=1")).toBeNull();
  });

  it("formats paths for people", () => {
    expect(formatPath(["filter", "children", 2, "value"])).toBe("filter › children 2 › value");
    expect(formatPath(["filter", "children", 0, "valueList", 3])).toBe("filter › children 0 › valueList 3");
    expect(formatPath(["filter"])).toBe("filter");
  });
});

describe("loadInitialTree", () => {
  beforeEach(() => localStorage.clear());

  const search = (tree: GroupNode) => `?${URL_PARAM}=${encodeTreeForUrl(tree)}`;

  it("starts empty when there is nothing", () => {
    expect(loadInitialTree({ search: "" }, localStorage)).toEqual({ tree: emptyTree(), source: "empty" });
    expect(loadInitialTree({ search: "" }, null)).toEqual({ tree: emptyTree(), source: "empty" });
  });

  it("restores the stored tree after a reload", () => {
    writeWorkingTree(localStorage, GERMANY, null);
    expect(loadInitialTree({ search: "" }, localStorage)).toEqual({ tree: GERMANY, source: "storage" });
  });

  it("a shared link wins over what this device stored", () => {
    writeWorkingTree(localStorage, GERMANY, null);
    expect(loadInitialTree({ search: search(DIRECTORS) }, localStorage)).toEqual({
      tree: DIRECTORS,
      source: "url",
    });
    // Also when this device last stood at another link.
    writeWorkingTree(localStorage, GERMANY, encodeTreeForUrl(GERMANY));
    expect(loadInitialTree({ search: `?x=1&${search(DIRECTORS).slice(1)}` }, localStorage).tree).toEqual(
      DIRECTORS,
    );
  });

  it("this tab's own URL, one debounce behind, loses to the newer stored tree", () => {
    const param = encodeTreeForUrl(GERMANY);
    writeWorkingTree(localStorage, DIRECTORS, param);
    expect(loadInitialTree({ search: `?${URL_PARAM}=${param}` }, localStorage)).toEqual({
      tree: DIRECTORS,
      source: "storage",
    });
  });

  it("a broken link falls back to the stored tree, with a warning", () => {
    writeWorkingTree(localStorage, GERMANY, null);
    const loaded = loadInitialTree({ search: "?a=broken" }, localStorage);
    expect(loaded.tree).toEqual(GERMANY);
    expect(loaded.source).toBe("storage");
    expect(loaded.warning).toMatch(/damaged.*last audience on this device was opened instead/);
  });

  it("a broken link and nothing stored: an empty tree, with a warning", () => {
    const loaded = loadInitialTree({ search: `?a=${rawLink({ ...GERMANY, extra: 1 })}` }, localStorage);
    expect(loaded).toEqual({
      tree: emptyTree(),
      source: "empty",
      warning: expect.stringMatching(
        /the filter, “extra”: Unknown field: remove it\. An empty audience was opened instead/,
      ),
    });
  });

  it("a broken stored value never crashes: an empty tree, with a warning", () => {
    for (const raw of ["{oops", "null", '"text"', JSON.stringify({ tree: { type: "group", children: 5 } })]) {
      localStorage.setItem(WORKING_TREE_KEY, raw);
      const loaded = loadInitialTree({ search: "" }, localStorage);
      expect(loaded.tree, raw).toEqual(emptyTree());
      expect(loaded.source).toBe("empty");
      expect(loaded.warning).toMatch(/could not be restored/);
    }
  });

  it("restores a tree in progress: new rules the editor has not had filled in yet", () => {
    // The shapes the builder gives a new rule before the person types anything.
    const inProgress: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      id: "root",
      children: [
        { type: "condition", column: "EMPLOYEE_COUNT_MIN", operator: "eq", value: "", id: "c1" },
        { type: "semantic", on: "title", text: "", match: "similar", negate: false, id: "s1" },
        { type: "lookalike", domain: "", rbidOrg: "", match: "similar", negate: false, id: "l1" },
      ],
    };
    writeWorkingTree(localStorage, inProgress, null);
    expect(loadInitialTree({ search: "" }, localStorage)).toEqual({ tree: inProgress, source: "storage" });
    expect(loadInitialTree({ search: search(inProgress) }, localStorage)).toEqual({
      tree: inProgress,
      source: "url",
    });
    expect(decodeTreeFromUrl(encodeTreeForUrl(inProgress))).toEqual({
      tree: inProgress,
      unfinished: [
        "rule 1, its value: Enter a whole number",
        "rule 2, its text: Text must not be empty",
        "rule 3: A lookalike needs its company: a domain or a company ID",
      ],
    });
  });

  it("a good link still opens when the stored value is broken", () => {
    localStorage.setItem(WORKING_TREE_KEY, "{oops");
    expect(loadInitialTree({ search: search(GERMANY) }, localStorage)).toEqual({
      tree: GERMANY,
      source: "url",
    });
  });

  it("a storage that throws on read is reported, not fatal", () => {
    const storage = {
      getItem: () => {
        throw new Error("SecurityError");
      },
    } as unknown as Storage;
    const loaded = loadInitialTree({ search: "" }, storage);
    expect(loaded.tree).toEqual(emptyTree());
    expect(loaded.warning).toMatch(/SecurityError/);
  });
});

describe("useWorkingTreePersistence", () => {
  beforeEach(() => {
    localStorage.clear();
    window.history.replaceState({ route: "kept" }, "", "/builder?tab=sample#count");
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const stored = () =>
    JSON.parse(localStorage.getItem(WORKING_TREE_KEY)!) as { tree: unknown; urlParam: unknown };
  const withCity = (city: string): GroupNode => ({
    ...GERMANY,
    children: [...GERMANY.children, { type: "condition", column: "CITY_PER", operator: "eq", value: city }],
  });

  it("writes storage at once and the URL once typing pauses, with replaceState only", () => {
    const replace = vi.spyOn(window.history, "replaceState");
    const push = vi.spyOn(window.history, "pushState");
    const { rerender } = renderHook(({ tree }) => useWorkingTreePersistence(tree), {
      initialProps: { tree: withCity("B") },
    });
    expect(stored().tree).toEqual(withCity("B"));
    // A burst of typing: every keystroke stored, no URL change yet.
    for (const city of ["Be", "Ber", "Berl", "Berli", "Berlin"]) {
      act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS - 50));
      rerender({ tree: withCity(city) });
      expect(stored().tree).toEqual(withCity(city));
    }
    expect(replace).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS));
    expect(replace).toHaveBeenCalledTimes(1);
    expect(push).not.toHaveBeenCalled();
    expect(window.location.pathname).toBe("/builder");
    expect(window.location.hash).toBe("#count");
    expect(window.history.state).toEqual({ route: "kept" });
    const params = new URLSearchParams(window.location.search);
    expect(params.get("tab")).toBe("sample");
    expect(decodeTreeFromUrl(treeParamOf(window.location.search)!)).toEqual({
      tree: withCity("Berlin"),
      unfinished: [],
    });
    // Storage now records the URL it lives at: a reload opens the same tree.
    expect(stored().urlParam).toBe(treeParamOf(window.location.search));
    expect(loadInitialTree(window.location, localStorage).tree).toEqual(withCity("Berlin"));
  });

  it("a reload within the debounce still gets the newest tree", () => {
    const { rerender } = renderHook(({ tree }) => useWorkingTreePersistence(tree), {
      initialProps: { tree: withCity("Paris") },
    });
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS));
    rerender({ tree: withCity("Lyon") });
    // The URL still says Paris: a crash or reload now must not lose Lyon.
    expect(decodeTreeFromUrl(treeParamOf(window.location.search)!)).toMatchObject({
      tree: withCity("Paris"),
    });
    expect(loadInitialTree(window.location, localStorage).tree).toEqual(withCity("Lyon"));
  });

  it("flushes a pending URL update when the page is left", () => {
    renderHook(() => useWorkingTreePersistence(DIRECTORS));
    expect(treeParamOf(window.location.search)).toBeNull();
    act(() => {
      window.dispatchEvent(new Event("pagehide"));
    });
    expect(treeParamOf(window.location.search)).toBe(encodeTreeForUrl(DIRECTORS));
  });

  it("drops a pending URL update on unmount (the URL belongs to another screen then)", () => {
    const replace = vi.spyOn(window.history, "replaceState");
    const { unmount } = renderHook(() => useWorkingTreePersistence(DIRECTORS));
    unmount();
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS * 2));
    expect(replace).not.toHaveBeenCalled();
    expect(stored().tree).toEqual(DIRECTORS);
  });

  it("an empty tree takes `a` out of the URL", () => {
    window.history.replaceState(null, "", `/builder?tab=sample&a=${encodeTreeForUrl(GERMANY)}`);
    renderHook(() => useWorkingTreePersistence(emptyTree()));
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS));
    expect(window.location.search).toBe("?tab=sample");
    expect(loadInitialTree(window.location, localStorage)).toEqual({ tree: emptyTree(), source: "storage" });
  });

  it("a tree too large for a link stays on this device, and says so", () => {
    window.history.replaceState(null, "", `/builder?a=${encodeTreeForUrl(GERMANY)}`);
    const values = Array.from({ length: 3000 }, (_, i) => `City ${i} ${Math.sin(i)}`);
    const big: GroupNode = {
      ...GERMANY,
      children: [{ type: "condition", column: "CITY_PER", operator: "in", valueList: values }],
    };
    expect(encodeTreeForUrl(big).length).toBeGreaterThan(MAX_URL_PARAM_LENGTH);
    const { result } = renderHook(() => useWorkingTreePersistence(big));
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS));
    expect(result.current.linkTooLong).toBe(true);
    // The stale, smaller link is gone, so a reload cannot bring it back over the stored tree.
    expect(window.location.search).toBe("");
    expect(loadInitialTree(window.location, localStorage).tree).toEqual(big);
  });

  it("reports a storage that refuses to write, and keeps updating the URL", () => {
    const full = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      },
    } as unknown as Storage;
    const { result } = renderHook(() => useWorkingTreePersistence(GERMANY, { storage: full }));
    expect(result.current.storageError).toMatch(
      /Could not save on this device \(The quota has been exceeded/,
    );
    act(() => vi.advanceTimersByTime(URL_DEBOUNCE_MS));
    expect(treeParamOf(window.location.search)).toBe(encodeTreeForUrl(GERMANY));
  });
});
