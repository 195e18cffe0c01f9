import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { vi } from "vitest";
import {
  FilterEditor,
  type FilterEditorProps,
} from "../../../../src/app/features/builder/editor/filter-editor";
import {
  type FilterEditorState,
  useFilterEditor,
} from "../../../../src/app/features/builder/editor/use-filter-editor";
import type { FilterNode, GroupNode } from "../../../../src/contract/filter";

/** What jsdom lacks and Radix / dnd-kit / the combobox touch. */
export function installDomShims() {
  if (!("ResizeObserver" in globalThis))
    vi.stubGlobal(
      "ResizeObserver",
      class {
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    );
  const proto = Element.prototype as unknown as Record<string, unknown>;
  proto.scrollIntoView ??= () => {};
  proto.hasPointerCapture ??= () => false;
  proto.setPointerCapture ??= () => {};
  proto.releasePointerCapture ??= () => {};
}

/** One request the editor sent through the fake fetch. */
export interface SentRequest {
  method: string;
  path: string;
  body: unknown;
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** The insights answer of a breakdown of `groupField` (what value suggestions are read from). */
export function breakdown(groupField: string, buckets: { value: string; count: number }[]): Response {
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  return json({ section: "breakdown", groupField, total, buckets, otherCount: 0 });
}

/**
 * Replaces fetch with `handler` (and Request with one that resolves the app's relative `/api/...`
 * URLs against jsdom's location, as a browser does).
 */
export function installFakeFetch(handler: (request: SentRequest) => Response | Promise<Response>) {
  const sent: SentRequest[] = [];
  const BaseRequest = globalThis.Request;
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async (input: Request) => {
    const text = await input.clone().text();
    const request: SentRequest = {
      method: input.method,
      path: decodeURIComponent(new URL(input.url).pathname),
      body: text === "" ? null : JSON.parse(text),
    };
    sent.push(request);
    return handler(request);
  });
  return sent;
}

export function renderEditor(initial: GroupNode, props: Partial<Omit<FilterEditorProps, "editor">> = {}) {
  const state: { current: FilterEditorState | null } = { current: null };
  function Harness() {
    const editor = useFilterEditor(initial);
    state.current = editor;
    return <FilterEditor editor={editor} {...props} />;
  }
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <Harness />
    </QueryClientProvider>,
  );
  const editor = () => {
    if (!state.current) throw new Error("editor not rendered");
    return state.current;
  };
  return { ...utils, queryClient, editor, tree: () => editor().tree };
}

export function group(children: FilterNode[], extra: Partial<GroupNode> = {}): GroupNode {
  return { type: "group", op: "AND", negate: false, children, ...extra };
}

export function cond(id: string, column = "COUNTRY_NAME_PER", value: string | number = "France"): FilterNode {
  return { type: "condition", id, column, operator: "eq", value };
}

/** The children of the root, without ids, for comparisons. */
export function shape(node: FilterNode): unknown {
  const { id: _id, ...rest } = node as FilterNode & { id?: unknown };
  if (node.type === "group") return { ...rest, children: node.children.map(shape) };
  return rest;
}
