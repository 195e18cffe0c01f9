/**
 * Bench-only: a minimal React DevTools global hook, installed before react-dom loads (main.tsx
 * imports this module first). On every commit it walks the committed fiber tree the way DevTools
 * does (a subtree whose child list is the previous one's was not rendered at all; a component fiber
 * rendered when it is new or carries the PerformedWork flag) and records each rendered component,
 * attributed to the filter node it belongs to (the nearest ancestor with a `node` prop that has an id),
 * and each context provider whose value changed (by identity) in the commit: React then scans every
 * bailed-out subtree below it for consumers (its lazy context propagation), rendered or not.
 */

export interface RenderedComponent {
  name: string;
  /** Id of the filter node the component belongs to; "" above the tree (the editor's shell). */
  owner: string;
}

export interface CommitReport {
  rendered: RenderedComponent[];
  /** Providers whose value changed: "<context> in <component> (node <id>)". */
  changedProviders: string[];
}

interface Fiber {
  tag: number;
  type: unknown;
  memoizedProps: unknown;
  flags: number;
  child: Fiber | null;
  sibling: Fiber | null;
  alternate: Fiber | null;
}

const CONTEXT_PROVIDER = 10;

/** FunctionComponent, ClassComponent, ForwardRef, SimpleMemoComponent (a MemoComponent's inner function is its child). */
const COMPONENT_TAGS = new Set([0, 1, 11, 15]);
const PERFORMED_WORK = 1;

function componentName(type: unknown): string {
  if (typeof type === "function") {
    const f = type as { displayName?: string; name?: string };
    return f.displayName || f.name || "Anonymous";
  }
  if (type && typeof type === "object") {
    const o = type as { displayName?: string; render?: unknown; type?: unknown };
    if (o.displayName) return o.displayName;
    if (o.render) return componentName(o.render);
    if (o.type) return componentName(o.type);
  }
  return "Anonymous";
}

function ownerOf(fiber: Fiber, inherited: string): string {
  const props = fiber.memoizedProps as { node?: { id?: unknown } } | null;
  const id = props && typeof props === "object" ? props.node?.id : undefined;
  return typeof id === "string" ? id : inherited;
}

/** A context by its displayName, else by the shape of its value (dnd-kit's contexts have no name). */
function contextName(type: unknown, value: unknown): string {
  const context = type as { displayName?: string; _context?: { displayName?: string } } | null;
  const name = context?.displayName ?? context?._context?.displayName;
  if (name) return name;
  if (value && typeof value === "object") return `context {${Object.keys(value).slice(0, 5).join(", ")}}`;
  return `context (${typeof value})`;
}

function walk(next: Fiber, prev: Fiber | null, owner: string, component: string, out: CommitReport): void {
  const mine = ownerOf(next, owner);
  let within = component;
  if (COMPONENT_TAGS.has(next.tag)) {
    within = componentName(next.type);
    if (prev === null || (next.flags & PERFORMED_WORK) !== 0)
      out.rendered.push({ name: within, owner: mine });
  }
  if (next.tag === CONTEXT_PROVIDER && prev !== null) {
    const before = (prev.memoizedProps as { value?: unknown } | null)?.value;
    const after = (next.memoizedProps as { value?: unknown } | null)?.value;
    if (!Object.is(before, after))
      out.changedProviders.push(
        `${contextName(next.type, after)} in ${within}${mine ? ` (node ${mine})` : ""}`,
      );
  }
  // The same child list as before: nothing below was rendered in this commit.
  if (prev !== null && next.child === prev.child) return;
  for (let child = next.child; child; child = child.sibling) walk(child, child.alternate, mine, within, out);
}

let listener: ((report: CommitReport) => void) | null = null;

/** Where each commit's report goes (null: nowhere). */
export function onCommittedRenders(next: ((report: CommitReport) => void) | null): void {
  listener = next;
}

// Installed when this module is evaluated, which main.tsx makes happen before react-dom's.
{
  const hook = {
    supportsFiber: true,
    isDisabled: false,
    renderers: new Map<number, unknown>(),
    inject(renderer: unknown) {
      const id = hook.renderers.size + 1;
      hook.renderers.set(id, renderer);
      return id;
    },
    onCommitFiberRoot(_id: number, root: { current: Fiber }) {
      if (!listener) return;
      const out: CommitReport = { rendered: [], changedProviders: [] };
      walk(root.current, root.current.alternate, "", "", out);
      listener(out);
    },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
  };
  (globalThis as { __REACT_DEVTOOLS_GLOBAL_HOOK__?: unknown }).__REACT_DEVTOOLS_GLOBAL_HOOK__ = hook;
}
