import { describe, expect, it } from "vitest";
import {
  COMMANDS,
  type CommandId,
  commandById,
  commandForKey,
  formatKey,
  parseKey,
  runCommand,
} from "../../../../src/app/lib/filter/commands";
import { createHistory } from "../../../../src/app/lib/filter/history";
import { nodeAt } from "../../../../src/app/lib/filter/tree";
import type { GroupNode } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { cond, deepTree, errorOf, group, okTree, sem, shape } from "./helpers";

const ALL_IDS: CommandId[] = [
  "addCondition",
  "addGroup",
  "addTitleMatch",
  "addCompanyMatch",
  "addLookalike",
  "remove",
  "duplicate",
  "wrap",
  "unwrap",
  "negate",
  "moveUp",
  "moveDown",
  "indent",
  "outdent",
  "undo",
  "redo",
];

/** root(a g(c d) s) */
function sample(): GroupNode {
  return group("root", [cond("a"), group("g", [cond("c"), cond("d")]), sem("s")]);
}

const key = (
  k: string,
  mods: Partial<Record<"ctrlKey" | "metaKey" | "shiftKey" | "altKey", boolean>> = {},
) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe("the command table", () => {
  it("has every command once, with a label, a description and keys", () => {
    expect(COMMANDS.map((c) => c.id).sort()).toEqual([...ALL_IDS].sort());
    for (const command of COMMANDS) {
      expect(command.label).not.toBe("");
      expect(command.description).not.toBe("");
      expect(commandById(command.id)).toBe(command);
      expect(command.recordsHistory).toBe(command.id !== "undo" && command.id !== "redo");
    }
  });

  it("no two commands share a key", () => {
    const keys = COMMANDS.flatMap((c) => c.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("never binds Tab (focus navigation) nor a bare key", () => {
    for (const spec of COMMANDS.flatMap((c) => c.keys)) {
      const chord = parseKey(spec);
      expect(chord.key).not.toBe("Tab");
      expect(chord.mod || chord.alt).toBe(true);
    }
  });
});

describe("commandForKey", () => {
  const cases: [ReturnType<typeof key>, CommandId][] = [
    [key("Enter", { ctrlKey: true }), "addCondition"],
    [key("Enter", { metaKey: true }), "addCondition"],
    [key("Enter", { ctrlKey: true, shiftKey: true }), "addGroup"],
    [key("g", { ctrlKey: true }), "wrap"],
    [key("G", { metaKey: true, shiftKey: true }), "unwrap"],
    [key("d", { metaKey: true }), "duplicate"],
    [key("Backspace", { ctrlKey: true }), "remove"],
    [key("i", { ctrlKey: true }), "negate"],
    [key("ArrowUp", { altKey: true }), "moveUp"],
    [key("ArrowDown", { altKey: true }), "moveDown"],
    [key("ArrowRight", { altKey: true }), "indent"],
    [key("ArrowLeft", { altKey: true }), "outdent"],
    [key("z", { ctrlKey: true }), "undo"],
    [key("Z", { metaKey: true }), "undo"],
    [key("z", { metaKey: true, shiftKey: true }), "redo"],
    [key("Z", { ctrlKey: true, shiftKey: true }), "redo"],
    [key("y", { ctrlKey: true }), "redo"],
  ];
  it.each(cases)("%o -> %s", (event, id) => {
    expect(commandForKey(event)?.id).toBe(id);
  });

  it("matches modifiers exactly and ignores plain typing and Tab", () => {
    for (const event of [
      key("Enter"),
      key("g"),
      key("z"),
      key("Tab"),
      key("Tab", { shiftKey: true }),
      key("Backspace"),
      key("ArrowUp"),
      key("ArrowUp", { ctrlKey: true }),
      key("ArrowUp", { altKey: true, shiftKey: true }),
      key("g", { ctrlKey: true, altKey: true }),
      key("y", { ctrlKey: true, shiftKey: true }),
      key("Enter", { altKey: true }),
    ])
      expect(commandForKey(event)).toBeUndefined();
  });

  it("inside a text field, leaves out the keys that edit text there", () => {
    expect(commandForKey(key("Backspace", { metaKey: true }), { typing: true })).toBeUndefined();
    expect(commandForKey(key("ArrowLeft", { altKey: true }), { typing: true, mac: true })).toBeUndefined();
    expect(commandForKey(key("ArrowLeft", { altKey: true }), { typing: true })?.id).toBe("outdent");
    expect(commandForKey(key("Enter", { metaKey: true }), { typing: true })?.id).toBe("addCondition");
    expect(commandForKey(key("z", { metaKey: true }), { typing: true })?.id).toBe("undo");
  });

  it("formatKey writes keys for people", () => {
    expect(formatKey("Mod+Shift+Enter", false)).toBe("Ctrl+Shift+Enter");
    expect(formatKey("Mod+Shift+Enter", true)).toBe("⌘⇧↩");
    expect(formatKey("Alt+ArrowUp", false)).toBe("Alt+↑");
    expect(formatKey("Mod+Backspace", true)).toBe("⌘⌫");
  });
});

describe("add commands", () => {
  it("add into the group at the path, else right after the node", () => {
    const tree = sample();
    const into = commandById("addCondition").perform(tree, [1]);
    expect(into).toMatchObject({ ok: true, focus: [1, 2] });
    expect(nodeAt(okTree(into), [1, 2])).toMatchObject({ type: "condition", column: "COUNTRY_NAME_PER" });
    const after = commandById("addCondition").perform(tree, [1, 0]);
    expect(after).toMatchObject({ ok: true, focus: [1, 1] });
    const root = commandById("addGroup").perform(tree, []);
    expect(root).toMatchObject({ ok: true, focus: [3] });
    expect(nodeAt(okTree(root), [3])).toMatchObject({ type: "group", children: [{ type: "condition" }] });
    expect(nodeAt(okTree(commandById("addTitleMatch").perform(tree, [2])), [3])).toMatchObject({
      type: "semantic",
      on: "title",
    });
    expect(nodeAt(okTree(commandById("addCompanyMatch").perform(tree, [0])), [1])).toMatchObject({
      type: "semantic",
      on: "company",
    });
    expect(nodeAt(okTree(commandById("addLookalike").perform(tree, [1, 1])), [1, 2])).toMatchObject({
      type: "lookalike",
    });
  });

  it("are disabled where nothing is, or where the new node would nest too deep", () => {
    const tree = sample();
    expect(commandById("addCondition").enabled(tree, [7])).toBe(false);
    expect(errorOf(commandById("addCondition").perform(tree, [7]))).toBe(
      "There is nothing at that position in the filter.",
    );
    const deep = deepTree(MAX_FILTER_DEPTH - 1);
    const innermost = Array.from({ length: MAX_FILTER_DEPTH - 2 }, () => 0);
    expect(commandById("addCondition").enabled(deep, innermost)).toBe(true);
    expect(commandById("addGroup").enabled(deep, innermost)).toBe(false);
    expect(commandById("addGroup").perform(deep, innermost).ok).toBe(false);
  });
});

describe("structural commands", () => {
  const tree = sample();
  const table: [CommandId, number[], boolean, string | null][] = [
    ["remove", [0], true, "root(g(c d) s)"],
    ["remove", [], false, null],
    ["duplicate", [1, 1], true, null],
    ["duplicate", [], false, null],
    ["wrap", [2], true, null],
    ["wrap", [], false, null],
    ["unwrap", [1], true, "root(a c d s)"],
    ["unwrap", [0], false, null],
    ["unwrap", [], false, null],
    ["negate", [2], true, "root(a g(c d) !s)"],
    ["negate", [], true, "!root(a g(c d) s)"],
    ["negate", [9], false, null],
    ["moveUp", [2], true, "root(a s g(c d))"],
    ["moveUp", [0], false, null],
    ["moveDown", [0], true, "root(g(c d) a s)"],
    ["moveDown", [2], false, null],
    ["moveDown", [1, 1], false, null],
    ["indent", [2], true, "root(a g(c d s))"],
    ["indent", [0], false, null],
    ["outdent", [1, 0], true, "root(a g(d) c s)"],
    ["outdent", [1], false, null],
  ];
  it.each(table)("%s at %j: enabled %s", (id, path, enabled, expected) => {
    const command = commandById(id);
    expect(command.enabled(tree, path)).toBe(enabled);
    const result = command.perform(tree, path);
    expect(result.ok).toBe(enabled);
    if (!result.ok) expect(result.tree).toBe(tree);
    if (expected) expect(shape(okTree(result))).toBe(expected);
  });

  it("negate is enabled on a condition in a single-item NOT group even at the depth limit", () => {
    const deep = deepTree(MAX_FILTER_DEPTH - 1);
    const leaf = Array.from({ length: MAX_FILTER_DEPTH - 1 }, () => 0);
    expect(commandById("negate").enabled(deep, leaf)).toBe(false);
    const negatedParent = okTree(commandById("negate").perform(deep, leaf.slice(0, -1)));
    expect(commandById("negate").enabled(negatedParent, leaf)).toBe(true);
    expect(commandById("negate").perform(negatedParent, leaf).ok).toBe(true);
  });

  it("undo and redo perform nothing themselves", () => {
    for (const id of ["undo", "redo"] as const) {
      const result = commandById(id).perform(tree, [0]);
      expect(result).toEqual({ ok: true, tree });
      expect(commandById(id).enabled(tree, [])).toBe(true);
    }
  });
});

describe("runCommand", () => {
  it("records performed commands and routes undo / redo to the history", () => {
    let h = createHistory(sample());
    let step = runCommand(h, "remove", [0], { now: 0 });
    expect(step.result.ok).toBe(true);
    h = step.history;
    expect(shape(h.present)).toBe("root(g(c d) s)");
    step = runCommand(h, "undo", []);
    expect(shape(step.history.present)).toBe("root(a g(c d) s)");
    expect(step.result).toEqual({ ok: true, tree: step.history.present });
    step = runCommand(step.history, "redo", []);
    expect(shape(step.history.present)).toBe("root(g(c d) s)");
    const none = runCommand(step.history, "redo", []);
    expect(none.history).toBe(step.history);
    expect(errorOf(none.result)).toBe("Nothing to redo.");
    expect(errorOf(runCommand(createHistory(sample()), "undo", []).result)).toBe("Nothing to undo.");
  });

  it("a refused command leaves the history as it was", () => {
    const h = createHistory(sample());
    const step = runCommand(h, "outdent", [0]);
    expect(step.history).toBe(h);
    expect(errorOf(step.result)).toBe("It is already at the top level.");
  });
});
