// The hook first: it must be in place before react-dom is evaluated.
import { type CommitReport, onCommittedRenders } from "./devtools-hook";
import "../../../src/app/ui/tokens.css";
import "../../../src/app/ui/global.css";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Profiler, type ProfilerOnRenderCallback, useEffect } from "react";
// Aliased to react-dom/profiling by the bench's build, so that <Profiler> reports in production.
import { createRoot } from "react-dom/client";
import { NodeCountButton } from "../../../src/app/features/audience/node-count-button";
import type { NodeAsideContext } from "../../../src/app/features/builder/editor/editor-context";
import { FilterEditor } from "../../../src/app/features/builder/editor/filter-editor";
import { setRenderProbe } from "../../../src/app/features/builder/editor/render-probe";
import { useFilterEditor } from "../../../src/app/features/builder/editor/use-filter-editor";
import type { FilterNode, GroupNode } from "../../../src/contract/filter";

/**
 * Bench-only page (tests/bench/editor-bench.ts builds and drives it): the real FilterEditor and
 * useFilterEditor over a generated tree of `?groups=` groups of `?per=` conditions (ids root, g1..,
 * g1c1..), with the Builder page's per-node count button beside every node, as the page has it.
 * Nothing here talks to a server: the count buttons only ask when clicked, and fetch is stubbed.
 *
 * It records, by keystroke (a keydown seen in the capture phase opens the next one):
 *  - every commit's Profiler timings, and when the commit's layout phase ran (performance.now());
 *  - the editor's render probe (which node components rendered);
 *  - every component fiber that rendered, from a DevTools-style hook (devtools-hook.ts).
 */

interface KeyRecord {
  index: number;
  key: string;
  /** The keydown event's timeStamp (same clock as performance.now()): when the input happened. */
  t0: number;
  /** performance.now() when the keydown reached the page's first (capture) listener. */
  handled: number;
  /** performance.now() when the keystroke's input event reached the first (capture) listener. */
  input?: number;
  /** performance.now() when a message posted at the keydown arrived: the keystroke's task had ended. */
  end?: number;
}
interface CommitRecord {
  key: number;
  phase: string;
  actualDuration: number;
  baseDuration: number;
  /** performance.now() when onRender ran (in the commit's layout phase). */
  at: number;
}
interface RenderRecord {
  key: number;
  name: string;
}
interface FiberRecord extends CommitReport {
  key: number;
}

export interface BenchState {
  ready: boolean;
  rootId: string;
  conditions: number;
  hookInstalled: boolean;
  keys: KeyRecord[];
  commits: CommitRecord[];
  probe: RenderRecord[];
  fibers: FiberRecord[];
  fetches: string[];
  reset(): void;
  /** The value of condition `id` in the editor's current tree. */
  valueOf(id: string): unknown;
}

const params = new URLSearchParams(window.location.search);
const GROUPS = Number(params.get("groups") ?? 30);
const PER_GROUP = Number(params.get("per") ?? 10);

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

let currentKey = 0;
let latestTree: GroupNode | null = null;
const bench: BenchState = {
  ready: false,
  rootId: "root",
  conditions: GROUPS * PER_GROUP,
  hookInstalled: false,
  keys: [],
  commits: [],
  probe: [],
  fibers: [],
  fetches: [],
  reset() {
    bench.keys.length = 0;
    bench.commits.length = 0;
    bench.probe.length = 0;
    bench.fibers.length = 0;
  },
  valueOf(id) {
    const find = (node: FilterNode): FilterNode | undefined => {
      if (node.id === id) return node;
      if (node.type !== "group") return undefined;
      for (const child of node.children) {
        const found = find(child);
        if (found) return found;
      }
      return undefined;
    };
    const node = latestTree ? find(latestTree) : undefined;
    return node?.type === "condition" ? node.value : undefined;
  },
};
(window as unknown as { __bench: BenchState }).__bench = bench;

// The harness needs no server: anything that would fetch gets an empty 503 and is recorded.
window.fetch = async (input) => {
  bench.fetches.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  return new Response("{}", { status: 503, headers: { "content-type": "application/json" } });
};

const taskEnd = new MessageChannel();
taskEnd.port1.onmessage = (message: MessageEvent<number>) => {
  const record = bench.keys.find((k) => k.index === message.data);
  if (record) record.end = performance.now();
};
document.addEventListener(
  "keydown",
  (event) => {
    currentKey += 1;
    bench.keys.push({ index: currentKey, key: event.key, t0: event.timeStamp, handled: performance.now() });
    taskEnd.port2.postMessage(currentKey);
  },
  true,
);
document.addEventListener(
  "input",
  () => {
    const last = bench.keys[bench.keys.length - 1];
    if (last && last.index === currentKey && last.input === undefined) last.input = performance.now();
  },
  true,
);

const onRender: ProfilerOnRenderCallback = (_id, phase, actualDuration, baseDuration) => {
  bench.commits.push({ key: currentKey, phase, actualDuration, baseDuration, at: performance.now() });
};
setRenderProbe((name, nodeId) => bench.probe.push({ key: currentKey, name: `${name}:${nodeId}` }));
onCommittedRenders((report) => bench.fibers.push({ key: currentKey, ...report }));

/** The Builder page's aside (module level, so the rows stay memoised). */
function nodeAside(node: FilterNode, context: NodeAsideContext) {
  return (
    <NodeCountButton node={node} valid={context.problems === undefined} blockedBy={context.problems?.[0]} />
  );
}

const initial = generatedTree();

function Harness() {
  const editor = useFilterEditor(initial);
  latestTree = editor.tree;
  useEffect(() => {
    bench.ready = true;
  }, []);
  return <FilterEditor editor={editor} label="Audience filter" renderNodeAside={nodeAside} />;
}

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root");
bench.hookInstalled =
  ((globalThis as { __REACT_DEVTOOLS_GLOBAL_HOOK__?: { renderers?: Map<number, unknown> } })
    .__REACT_DEVTOOLS_GLOBAL_HOOK__?.renderers?.size ?? 0) > 0;
createRoot(container).render(
  <QueryClientProvider client={queryClient}>
    <Profiler id="filter-editor" onRender={onRender}>
      <main className="page">
        <Harness />
      </main>
    </Profiler>
  </QueryClientProvider>,
);
