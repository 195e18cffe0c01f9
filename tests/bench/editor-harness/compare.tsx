import "../../../src/app/ui/tokens.css";
import "../../../src/app/ui/global.css";
import "react-querybuilder/dist/query-builder.css";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Profiler, type ProfilerOnRenderCallback, useEffect, useState } from "react";
// Aliased to react-dom/profiling by the bench's build, so that <Profiler> reports in production.
import { createRoot } from "react-dom/client";
import { type Field, QueryBuilder, type RuleGroupType, type RuleType } from "react-querybuilder";
import { FilterEditor } from "../../../src/app/features/builder/editor/filter-editor";
import { useFilterEditor } from "../../../src/app/features/builder/editor/use-filter-editor";
import { COLUMNS, operatorsFor } from "../../../src/contract/columns";
import type { FilterNode, GroupNode } from "../../../src/contract/filter";
import type { Operator } from "../../../src/contract/inferred";

/**
 * Bench-only page (tests/bench/editor-compare.ts builds and drives it): `?editor=ours` mounts our
 * FilterEditor + useFilterEditor, `?editor=rqb` react-querybuilder's QueryBuilder (its default
 * controls and its own stylesheet, controlled: `query` + `onQueryChange` into React state), both
 * on the same generated tree of `?groups=` groups of `?per=` conditions (ids root, g1.., g1c1..),
 * with the same fields and, per field, the same comparisons. The page records, per edit the bench
 * announces (`__cmp.begin(kind, trigger)`): when its trigger event happened, every commit's
 * Profiler timings, and the first animation frame after each commit.
 */

type Kind = string;
type Trigger = "keydown" | "click" | "pointerdown";

interface EditRecord {
  kind: Kind;
  trigger: Trigger;
  /**
   * performance.now() when the trigger event reached the page's first listener. (Its timeStamp is
   * earlier by the browser's input queue: a scripted click's mouseup, sent a millisecond after its
   * mousedown, waits there for the frame the mousedown asked for, which no person's click does.)
   */
  t0?: number;
  /** The trigger event's timeStamp (same clock), for the record. */
  stamp?: number;
  /**
   * Per commit: when onRender ran, React's render time, when React started rendering it, the
   * editor's tree version it committed, and when the animation-frame callback after it ran.
   */
  commits: { at: number; actual: number; start: number; version: number; raf?: number }[];
  /** The tree version when the edit began: its own commit is the first with a later one. */
  versionAtBegin: number;
  /** When the task after each commit's next animation frame ran (the frame was produced). */
  frames: number[];
}

/** The tree in one shape for both editors, for the bench's sanity checks. */
export interface Snapshot {
  groups: Record<string, { op: "AND" | "OR"; rules: string[] }>;
  rules: Record<string, { operator: string; value: unknown }>;
}

export interface CompareState {
  ready: boolean;
  editor: "ours" | "rqb";
  edits: EditRecord[];
  begin(kind: Kind, trigger: Trigger): void;
  reset(): void;
  snapshot(): Snapshot;
}

const params = new URLSearchParams(window.location.search);
const EDITOR = params.get("editor") === "rqb" ? "rqb" : "ours";
const GROUPS = Number(params.get("groups") ?? 30);
const PER_GROUP = Number(params.get("per") ?? 10);

/** The tree of tests/bench/editor-harness/main.tsx: 30 x 10 "Country is Country g.c". */
function generatedTree(): GroupNode {
  const groups: FilterNode[] = [];
  for (let g = 1; g <= GROUPS; g++) {
    const children: FilterNode[] = [];
    for (let c = 1; c <= PER_GROUP; c++)
      children.push({
        type: "condition",
        id: `g${g}c${c}`,
        column: "COUNTRY_NAME_PER",
        operator: "eq",
        value: `Country ${g}.${c}`,
      });
    groups.push({ type: "group", id: `g${g}`, op: g % 2 === 0 ? "OR" : "AND", negate: false, children });
  }
  return { type: "group", id: "root", op: "AND", negate: false, children: groups };
}

// Our operators and react-querybuilder's names for them.
const RQB_OPERATOR: Record<Operator, string> = {
  eq: "=",
  ne: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  contains: "contains",
  startsWith: "beginsWith",
  endsWith: "endsWith",
  between: "between",
  in: "in",
  notIn: "notIn",
  isNull: "null",
  isNotNull: "notNull",
} as Record<Operator, string>;
const OUR_OPERATOR = new Map(Object.entries(RQB_OPERATOR).map(([ours, theirs]) => [theirs, ours]));

/** Our column catalogue as react-querybuilder fields: the same labels and comparisons. */
const FIELDS: Field[] = COLUMNS.map((column) => ({
  name: column.name,
  label: column.label,
  operators: operatorsFor(column).map((op) => ({ name: RQB_OPERATOR[op], label: RQB_OPERATOR[op] })),
}));

/** Our tree as react-querybuilder's RuleGroupType (conditions and groups: all the bench's tree has). */
export function toRqb(group: GroupNode): RuleGroupType {
  return {
    id: group.id ?? undefined,
    combinator: group.op.toLowerCase(),
    not: group.negate,
    rules: group.children.map((child) => {
      if (child.type === "group") return toRqb(child);
      if (child.type !== "condition") throw new Error(`the bench's tree has no ${child.type} node`);
      const rule: RuleType = {
        id: child.id ?? undefined,
        field: child.column,
        operator: RQB_OPERATOR[child.operator] ?? child.operator,
        value: child.value ?? "",
      };
      return rule;
    }),
  };
}

function snapshotOurs(tree: GroupNode): Snapshot {
  const out: Snapshot = { groups: {}, rules: {} };
  const visit = (group: GroupNode) => {
    out.groups[group.id ?? ""] = { op: group.op, rules: group.children.map((c) => c.id ?? "") };
    for (const child of group.children)
      if (child.type === "group") visit(child);
      else if (child.type === "condition")
        out.rules[child.id ?? ""] = { operator: child.operator, value: child.value };
  };
  visit(tree);
  return out;
}

function snapshotRqb(query: RuleGroupType): Snapshot {
  const out: Snapshot = { groups: {}, rules: {} };
  const visit = (group: RuleGroupType) => {
    out.groups[group.id ?? ""] = {
      op: group.combinator.toUpperCase() === "OR" ? "OR" : "AND",
      rules: group.rules.map((r) => (typeof r === "string" ? r : (r.id ?? ""))),
    };
    for (const rule of group.rules) {
      if (typeof rule === "string") continue;
      if ("rules" in rule) visit(rule as RuleGroupType);
      else
        out.rules[rule.id ?? ""] = {
          operator: OUR_OPERATOR.get(rule.operator) ?? rule.operator,
          value: rule.value,
        };
    }
  };
  visit(query);
  return out;
}

let current: EditRecord | null = null;
/** Bumped whenever an editor renders a new tree object (its state changed). */
let treeVersion = 0;
let renderedTree: unknown = null;
function trackTree(tree: unknown) {
  if (tree === renderedTree) return;
  renderedTree = tree;
  treeVersion += 1;
}
let latest: () => Snapshot = () => ({ groups: {}, rules: {} });
const state: CompareState = {
  ready: false,
  editor: EDITOR,
  edits: [],
  begin(kind, trigger) {
    current = { kind, trigger, commits: [], frames: [], versionAtBegin: treeVersion };
    state.edits.push(current);
  },
  reset() {
    state.edits.length = 0;
    current = null;
  },
  snapshot: () => latest(),
};
(window as unknown as { __cmp: CompareState }).__cmp = state;

// Nothing here talks to a server: anything that would fetch gets an empty 503.
window.fetch = async () =>
  new Response("{}", { status: 503, headers: { "content-type": "application/json" } });

for (const type of ["keydown", "click", "pointerdown"] as const)
  document.addEventListener(
    type,
    (event) => {
      if (current && current.t0 === undefined && current.trigger === type) {
        current.t0 = performance.now();
        current.stamp = event.timeStamp;
      }
    },
    true,
  );

// The task after the next animation frame's callbacks: style, layout and paint of that frame are done.
const afterFrame = new MessageChannel();
let frameWaiters: EditRecord[] = [];
afterFrame.port1.onmessage = () => {
  const now = performance.now();
  for (const edit of frameWaiters) edit.frames.push(now);
  frameWaiters = [];
};

const onRender: ProfilerOnRenderCallback = (_id, _phase, actualDuration, _base, startTime) => {
  const edit = current;
  if (!edit) return;
  const commit = { at: performance.now(), actual: actualDuration, start: startTime, version: treeVersion };
  edit.commits.push(commit);
  requestAnimationFrame(() => {
    (commit as { raf?: number }).raf = performance.now();
    frameWaiters.push(edit);
    afterFrame.port2.postMessage(null);
  });
};

const initial = generatedTree();

function Ours() {
  const editor = useFilterEditor(initial);
  trackTree(editor.tree);
  latest = () => snapshotOurs(editor.tree);
  useEffect(() => {
    state.ready = true;
  }, []);
  return <FilterEditor editor={editor} label="Audience filter" />;
}

const initialQuery = toRqb(initial);

function Theirs() {
  const [query, setQuery] = useState(initialQuery);
  trackTree(query);
  latest = () => snapshotRqb(query);
  useEffect(() => {
    state.ready = true;
  }, []);
  return <QueryBuilder fields={FIELDS} query={query} onQueryChange={setQuery} />;
}

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
const container = document.getElementById("root");
if (!container) throw new Error("compare.html has no #root");
createRoot(container).render(
  <QueryClientProvider client={queryClient}>
    <Profiler id="editor" onRender={onRender}>
      <main className="page">{EDITOR === "rqb" ? <Theirs /> : <Ours />}</main>
    </Profiler>
  </QueryClientProvider>,
);
