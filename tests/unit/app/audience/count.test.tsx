// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CountBadge } from "../../../../src/app/features/audience/count-badge";
import { NodeCountButton } from "../../../../src/app/features/audience/node-count-button";
import type { ConditionNode } from "../../../../src/contract/filter";
import {
  advance,
  deferred,
  installFakeFetch,
  json,
  levelIs,
  renderWithClient,
  type SentRequest,
  sentValue,
} from "./harness";

/** Counts by the job level asked for. */
const COUNTS: Record<string, number> = { Director: 12_345, VP: 678, CXO: 1, Manager: 40_000, Intern: 5 };

function countAnswer(request: SentRequest) {
  return json({ count: COUNTS[String(sentValue(request))] ?? 0, mode: "exact" });
}

function badge() {
  return screen.getByRole("status");
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("CountBadge: the live count", () => {
  it("counts the first tree at once, shows the number with separators, and sends the canonical tree", async () => {
    const sent = installFakeFetch(countAnswer);
    renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe("/api/v2/contact/count");
    expect(sent[0]?.headers.get("x-csrf")).toBe("1");
    // Ids are dropped: the canonical form is what is sent (and what keys the cache).
    expect(JSON.stringify(sent[0]?.body)).not.toContain('"id"');
    expect(badge().textContent).toContain("12,345 people");
    expect(badge().dataset.state).toBe("ready");
  });

  it("debounces: three quick changes send one request, for the last tree", async () => {
    const sent = installFakeFetch(countAnswer);
    const view = renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    expect(sent).toHaveLength(1);
    view.rerender(<CountBadge filter={levelIs("VP")} valid />);
    await advance(100);
    view.rerender(<CountBadge filter={levelIs("Manager")} valid />);
    await advance(100);
    view.rerender(<CountBadge filter={levelIs("Intern")} valid />);
    await advance(299);
    expect(sent).toHaveLength(1);
    await advance(1);
    expect(sent).toHaveLength(2);
    expect(sentValue(sent[1])).toBe("Intern");
    await advance(1000);
    expect(sent).toHaveLength(2);
    expect(badge().textContent).toContain("5 people");
  });

  it("a new id alone (same canonical key) sends nothing", async () => {
    const sent = installFakeFetch(countAnswer);
    const view = renderWithClient(<CountBadge filter={levelIs("Director", "a")} valid />);
    await advance(0);
    view.rerender(<CountBadge filter={levelIs("Director", "b")} valid />);
    await advance(1000);
    expect(sent).toHaveLength(1);
  });

  it("aborts the superseded request when a newer tree settles", async () => {
    const slow = deferred<Response>();
    const sent = installFakeFetch((request) =>
      sentValue(request) === "VP" ? slow.promise : countAnswer(request),
    );
    const view = renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    view.rerender(<CountBadge filter={levelIs("VP")} valid />);
    await advance(300);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.signal.aborted).toBe(false);
    view.rerender(<CountBadge filter={levelIs("Manager")} valid />);
    await advance(300);
    expect(sent).toHaveLength(3);
    expect(sent[1]?.signal.aborted).toBe(true);
    expect(sent[2]?.signal.aborted).toBe(false);
    expect(badge().textContent).toContain("40,000 people");
    expect(badge().dataset.state).toBe("ready");
  });

  it("going back to an earlier tree shows its count at once from the cache, with no request", async () => {
    const sent = installFakeFetch(countAnswer);
    const view = renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    view.rerender(<CountBadge filter={levelIs("VP")} valid />);
    await advance(300);
    expect(badge().textContent).toContain("678 people");
    expect(sent).toHaveLength(2);
    view.rerender(<CountBadge filter={levelIs("Director", "another-id")} valid />);
    // No wait at all: the cached count is on screen in the same render.
    expect(badge().textContent).toContain("12,345 people");
    expect(badge().dataset.state).toBe("ready");
    await advance(5000);
    expect(sent).toHaveLength(2);
  });

  it("an invalid tree sends nothing and shows the dash with the reason", async () => {
    const sent = installFakeFetch(countAnswer);
    const view = renderWithClient(
      <CountBadge filter={levelIs("")} valid={false} blockedBy="Fix 'Job level': choose a value" />,
    );
    await advance(2000);
    expect(sent).toHaveLength(0);
    expect(badge().textContent).toContain("—");
    expect(badge().textContent).toContain("Fix 'Job level': choose a value");
    expect(badge().dataset.state).toBe("blocked");
    // Fixed: counted after the pause.
    view.rerender(<CountBadge filter={levelIs("CXO")} valid />);
    await advance(300);
    expect(sent).toHaveLength(1);
    expect(badge().textContent).toContain("1 person");
  });

  it("dims the previous count, with a spinner, while the newer one loads", async () => {
    const slow = deferred<Response>();
    installFakeFetch((request) => (sentValue(request) === "VP" ? slow.promise : countAnswer(request)));
    const view = renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    view.rerender(<CountBadge filter={levelIs("VP")} valid />);
    // Waiting for the pause already marks the shown count as old.
    expect(badge().dataset.state).toBe("stale");
    await advance(300);
    expect(badge().dataset.state).toBe("stale");
    expect(badge().getAttribute("aria-busy")).toBe("true");
    expect(badge().textContent).toContain("12,345 people");
    expect(badge().textContent).toContain("Updating the count");
    expect(badge().querySelector(".spinner")).not.toBeNull();
    await act(async () => {
      slow.resolve(json({ count: 678, mode: "exact" }));
    });
    await advance(0);
    expect(badge().dataset.state).toBe("ready");
    expect(badge().textContent).toContain("678 people");
    expect(badge().getAttribute("aria-busy")).toBe("false");
  });

  it("shows a readable error with a retry", async () => {
    let fail = true;
    const sent = installFakeFetch((request) =>
      fail
        ? json({ detail: "This API key may not count audiences." }, { status: 403 })
        : countAnswer(request),
    );
    renderWithClient(<CountBadge filter={levelIs("Director")} valid />);
    await advance(0);
    expect(badge().dataset.state).toBe("error");
    expect(badge().textContent).toContain("This API key may not count audiences.");
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await advance(0);
    expect(sent).toHaveLength(2);
    expect(badge().textContent).toContain("12,345 people");
  });
});

describe("NodeCountButton: one node's count, on demand", () => {
  const node: ConditionNode = {
    type: "condition",
    column: "JOB_LEVEL_PER",
    operator: "eq",
    value: "VP",
    id: "x",
    joinWithPrevious: "OR",
  };

  it("asks nothing until clicked, then counts the node alone and shows the number", async () => {
    const sent = installFakeFetch(countAnswer);
    renderWithClient(<NodeCountButton node={node} />);
    await advance(1000);
    expect(sent).toHaveLength(0);
    const button = screen.getByRole("button", { name: "How many does this keep?" });
    button.focus();
    fireEvent.click(button);
    await advance(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({
      filter: {
        type: "group",
        op: "AND",
        negate: false,
        children: [{ type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP" }],
      },
    });
    const answered = screen.getByRole("button", { name: /678 people match this rule on its own/ });
    // Same button throughout: focus stays where it was.
    expect(answered).toBe(button);
    expect(document.activeElement).toBe(button);
  });

  it("shares the cache with the live count: a node already counted shows without a click", async () => {
    const sent = installFakeFetch(countAnswer);
    const { rerender } = renderWithClient(<CountBadge filter={levelIs("VP")} valid />);
    await advance(0);
    expect(sent).toHaveLength(1);
    rerender(<NodeCountButton node={node} />);
    await advance(0);
    expect(screen.getByRole("button", { name: /678 people/ })).toBeTruthy();
    expect(sent).toHaveLength(1);
  });

  it("an incomplete node offers no count, only its reason", async () => {
    const sent = installFakeFetch(countAnswer);
    renderWithClient(
      <NodeCountButton node={{ ...node, value: "" }} valid={false} blockedBy="Choose a value" />,
    );
    await advance(1000);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.getByText("Choose a value")).toBeTruthy();
    expect(sent).toHaveLength(0);
  });
});
