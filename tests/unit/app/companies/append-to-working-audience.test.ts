import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { andAtTop } from "../../../../src/app/lib/filter/tree";
import { memoryStorage as plainMemoryStorage } from "../../../../src/app/lib/store";
import {
  appendToWorkingAudience,
  encodeTreeForUrl,
  loadInitialTree,
  MAX_URL_PARAM_LENGTH,
  searchWithTreeParam,
  treeParamOf,
  URL_PARAM,
  WORKING_TREE_KEY,
  writeWorkingTree,
} from "../../../../src/app/lib/working-tree";
import { describe as describeFilter } from "../../../../src/contract/describe";
import type { FilterNode, GroupNode, LookalikeNode } from "../../../../src/contract/filter";
import { strictFilterSchemas } from "../../../../src/contract/filter";
import { validFilterArb } from "../../../support/arbitraries/valid-filter";

/** A Storage in memory; `failWrites` makes every write throw, as a full quota does. */
function memoryStorage(options: { failWrites?: boolean } = {}): Storage {
  const storage = plainMemoryStorage();
  if (options.failWrites)
    storage.setItem = () => {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
  return storage;
}

const LIKE_ACME: LookalikeNode = {
  type: "lookalike",
  domain: "acme.com",
  rbidOrg: "",
  match: "similar",
  negate: false,
};
const germany: FilterNode = {
  type: "condition",
  column: "COUNTRY_NAME_PER",
  operator: "eq",
  value: "Germany",
  id: "c1",
};
const directors: FilterNode = {
  type: "condition",
  column: "JOB_LEVEL_PER",
  operator: "eq",
  value: "Director",
  id: "c2",
};
const andRoot: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [germany, directors],
  id: "r",
};
const orRoot: GroupNode = { type: "group", op: "OR", negate: false, children: [germany, directors], id: "r" };

/** What the Builder opens at `href` with this storage. */
function builderOpens(href: string, storage: Storage | null): GroupNode {
  const search = href.includes("?") ? href.slice(href.indexOf("?")) : "";
  return loadInitialTree({ search }, storage).tree;
}

/** `tree AND node` as the other screens add it (andAtTop), which must succeed here. */
function andTree(tree: GroupNode, node: FilterNode): GroupNode {
  const added = andAtTop(tree, node);
  if (!added.ok) throw new Error(added.error);
  return added.tree;
}
/** LIKE_ACME once added: it gets an id. */
const acme = { ...LIKE_ACME, id: expect.any(String) };

describe("andAtTop from another screen", () => {
  it("appends to a plain AND root", () => {
    expect(andTree(andRoot, LIKE_ACME)).toEqual({ ...andRoot, children: [germany, directors, acme] });
  });

  it("wraps an OR root: AND(root, node), so the rule narrows every branch", () => {
    const next = andTree(orRoot, LIKE_ACME);
    expect(next).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [orRoot, acme],
      id: expect.any(String),
    });
    expect(describeFilter(next)).toBe(
      '(Country is "Germany" or Job level is "Director") and works at a company similar to acme.com',
    );
  });

  it("wraps an AND root with an OR connector (AND binds tighter) and a negated root", () => {
    const mixed: GroupNode = { ...andRoot, children: [germany, { ...directors, joinWithPrevious: "OR" }] };
    expect(andTree(mixed, LIKE_ACME).children).toEqual([mixed, acme]);
    const negated: GroupNode = { ...andRoot, negate: true };
    expect(andTree(negated, LIKE_ACME).children).toEqual([negated, acme]);
  });

  it("makes the node the only rule of an empty tree (AND, whatever the op was)", () => {
    const empty: GroupNode = { type: "group", op: "OR", negate: false, children: [] };
    expect(andTree(empty, LIKE_ACME)).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [acme],
    });
  });

  it("drops a connector the node carried", () => {
    const next = andTree(andRoot, { ...LIKE_ACME, joinWithPrevious: "OR" });
    expect(next.children.at(-1)).toEqual(acme);
    expect(Object.hasOwn(next.children.at(-1)!, "joinWithPrevious")).toBe(false);
  });

  it("keeps exactly the people of both, for any valid tree and any truth of its rules", () => {
    fc.assert(
      fc.property(validFilterArb(), fc.integer(), (raw, seed) => {
        const tree = strictFilterSchemas.root.parse(raw)!;
        const added = andAtTop(tree, LIKE_ACME);
        // A tree already at the depth limit cannot be wrapped: refused, never cut.
        fc.pre(added.ok);
        const next = added.tree;
        expect(strictFilterSchemas.root.safeParse(next).success).toBe(true);
        const truth = truthOf(seed);
        expect(evaluate(next, truth)).toBe(evaluate(tree, truth) && truth(LIKE_ACME));
      }),
      { numRuns: 500 },
    );
  });
});

/** A rule's truth for one person: a hash of the rule (its connector aside) and the seed. */
function truthOf(seed: number) {
  return (leaf: FilterNode): boolean => {
    const { joinWithPrevious: _join, id: _id, ...rest } = leaf;
    let hash = seed | 0;
    for (const char of JSON.stringify(rest)) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    return (hash >>> 7) % 2 === 0;
  };
}

/** The filter's meaning for that person: connectors per child (AND binds tighter than OR), NOT, empty = everyone. */
function evaluate(node: FilterNode, truth: (leaf: FilterNode) => boolean): boolean {
  if (node.type !== "group") return truth(node);
  const children = node.children ?? [];
  let any = false;
  let term = true;
  children.forEach((child, i) => {
    const connector = i === 0 ? "AND" : (child.joinWithPrevious ?? node.op ?? "AND");
    if (connector === "OR") {
      any ||= term;
      term = true;
    }
    term &&= evaluate(child, truth);
  });
  const value = children.length === 0 ? true : any || term;
  return node.negate ? !value : value;
}

describe("appendToWorkingAudience", () => {
  it("adds the node to the stored tree and returns the Builder's address carrying it", () => {
    const storage = memoryStorage();
    writeWorkingTree(storage, andRoot, null);
    const result = appendToWorkingAudience(storage, LIKE_ACME);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.tree.children).toEqual([germany, directors, acme]);
    expect(result.href).toBe(`/${searchWithTreeParam("", encodeTreeForUrl(result.tree))}`);
    expect(treeParamOf(result.href.slice(1))).toBe(encodeTreeForUrl(result.tree));
    // Stored with the ?a= it will live at: the Builder opens it from storage, as its own.
    const stored = JSON.parse(storage.getItem(WORKING_TREE_KEY)!) as { tree: GroupNode; urlParam: string };
    expect(stored.tree).toEqual(result.tree);
    expect(stored.urlParam).toBe(encodeTreeForUrl(result.tree));
    expect(loadInitialTree({ search: result.href.slice(1) }, storage)).toEqual({
      tree: result.tree,
      source: "storage",
    });
  });

  it("wraps a stored OR root", () => {
    const storage = memoryStorage();
    writeWorkingTree(storage, orRoot, null);
    const result = appendToWorkingAudience(storage, LIKE_ACME);
    expect(result.ok && result.tree).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [orRoot, acme],
      id: expect.any(String),
    });
    expect(result.ok && builderOpens(result.href, storage)).toEqual(result.ok && result.tree);
  });

  it("starts from an empty tree when nothing is stored", () => {
    const storage = memoryStorage();
    const result = appendToWorkingAudience(storage, LIKE_ACME);
    expect(result.ok && result.tree).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [acme],
    });
    expect(result.ok && builderOpens(result.href, storage).children).toEqual([acme]);
  });

  it("reads the tree the page's own ?a= carries (a shared link), as the Builder would", () => {
    const storage = memoryStorage();
    writeWorkingTree(storage, orRoot, null);
    const search = `?${URL_PARAM}=${encodeTreeForUrl(andRoot)}`;
    const result = appendToWorkingAudience(storage, LIKE_ACME, { search });
    expect(result.ok && result.tree.children).toEqual([germany, directors, acme]);
  });

  it("replaces an unreadable stored value", () => {
    const storage = memoryStorage();
    storage.setItem(WORKING_TREE_KEY, "{not json");
    const result = appendToWorkingAudience(storage, LIKE_ACME);
    expect(result.ok && result.tree.children).toEqual([acme]);
    expect(result.ok && builderOpens("/", storage).children).toEqual([acme]);
  });

  it("without storage (null), the link alone carries the tree", () => {
    const result = appendToWorkingAudience(null, LIKE_ACME, { search: `?a=${encodeTreeForUrl(andRoot)}` });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.tree.children).toEqual([germany, directors, acme]);
    expect(builderOpens(result.href, null)).toEqual(result.tree);
  });

  it("when storage refuses the write, the link still carries the tree", () => {
    const result = appendToWorkingAudience(memoryStorage({ failWrites: true }), LIKE_ACME);
    expect(result.ok).toBe(true);
    if (result.ok) expect(builderOpens(result.href, null).children).toEqual([acme]);
  });

  it("fails readably only when the tree is too long for a link and storage is missing or refuses", () => {
    const long: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      children: [
        {
          type: "condition",
          column: "CITY_PER",
          operator: "in",
          valueList: Array.from({ length: 3000 }, (_, i) => `City ${i} ${Math.sin(i).toString(36)}`),
        },
      ],
    };
    expect(encodeTreeForUrl(long).length).toBeGreaterThan(MAX_URL_PARAM_LENGTH);
    const search = `?a=${encodeTreeForUrl(long)}`;
    for (const storage of [null, memoryStorage({ failWrites: true })]) {
      const result = appendToWorkingAudience(storage, LIKE_ACME, { search });
      expect(result).toEqual({ ok: false, error: expect.stringMatching(/too large for a link/) });
    }
    // With storage it works: the Builder opens it from storage at "/".
    const storage = memoryStorage();
    const result = appendToWorkingAudience(storage, LIKE_ACME, { search });
    expect(result.ok && result.href).toBe("/");
    expect(result.ok && builderOpens("/", storage).children).toHaveLength(2);
  });
});
