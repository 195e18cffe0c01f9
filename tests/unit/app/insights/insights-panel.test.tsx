// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fetchInsights, insightsQueryKey } from "../../../../src/app/features/insights/insights";
import { InsightsPanel, type InsightsPanelProps } from "../../../../src/app/features/insights/insights-panel";
import type { GroupNode } from "../../../../src/contract/filter";
import {
  advance,
  installFakeFetch,
  json,
  levelIs,
  renderWithClient,
  type SentRequest,
} from "../audience/harness";

// The chart (recharts) measures the page; jsdom has no layout. Its rows are HTML and tested here.
vi.mock("../../../../src/app/features/insights/breakdown-chart", () => ({
  CHART_ROW_PX: 32,
  BreakdownChart: ({ rows }: { rows: { key: string }[] }) => (
    <svg data-testid="chart" data-rows={rows.length} />
  ),
}));

type Body = { section: string; groupField?: string; fields?: string[]; filter: unknown };

function answer(request: SentRequest) {
  const body = request.body as Body;
  if (body.section === "summary")
    return json({ section: "summary", total: 1000, withEmail: 800, withMobile: 250, companies: 120 });
  if (body.section === "breakdown") {
    if (body.groupField === "EMPLOYEE_COUNT_RANGE_ORG")
      return json({
        section: "breakdown",
        groupField: body.groupField,
        total: 1000,
        buckets: [
          { value: "51-200", count: 400 },
          { value: "1-10", count: 300 },
          { value: null, count: 200 },
          { value: "10001+", count: 100 },
        ],
        otherCount: 0,
      });
    return json({
      section: "breakdown",
      groupField: body.groupField,
      total: 1000,
      buckets: [
        { value: "Director", count: 500 },
        { value: "VP", count: 300 },
        { value: null, count: 150 },
      ],
      otherCount: 50,
    });
  }
  return json({
    section: "fields",
    fields: Object.fromEntries((body.fields ?? []).map((f) => [f, [{ value: `${f} top`, count: 10 }]])),
  });
}

const insightsCalls = (sent: SentRequest[]) => sent.filter((r) => r.path === "/api/v2/contact/insights");
const sections = (sent: SentRequest[]) => insightsCalls(sent).map((r) => (r.body as Body).section);

function props(overrides: Partial<InsightsPanelProps> = {}): InsightsPanelProps {
  return {
    filter: levelIs("Director"),
    valid: true,
    countSettled: true,
    onAddCondition: () => ({ ok: true, changed: true }),
    ...overrides,
  };
}

beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("insights requests", () => {
  it("are keyed by the canonical filter: other ids and key order give the same key", () => {
    const a = levelIs("Director", "n1");
    const b: GroupNode = {
      children: [{ value: "Director", operator: "eq", column: "JOB_LEVEL_PER", type: "condition", id: "zz" }],
      negate: false,
      op: "AND",
      type: "group",
      id: "other-root",
    };
    const breakdown = { section: "breakdown", groupField: "COUNTRY_NAME_PER" } as const;
    expect(insightsQueryKey(a, breakdown)).toEqual(insightsQueryKey(b, breakdown));
    expect(insightsQueryKey(a, { section: "summary" })).toEqual(insightsQueryKey(b, { section: "summary" }));
    // Another column, another section or another audience is another entry.
    expect(insightsQueryKey(a, breakdown)).not.toEqual(
      insightsQueryKey(a, { section: "breakdown", groupField: "JOB_LEVEL_PER" }),
    );
    expect(insightsQueryKey(a, breakdown)).not.toEqual(insightsQueryKey(a, { section: "summary" }));
    expect(insightsQueryKey(a, breakdown)).not.toEqual(insightsQueryKey(levelIs("VP"), breakdown));
  });

  it("send the canonical filter (no ids), the section and its parameters, with x-csrf", async () => {
    vi.useRealTimers();
    const sent = installFakeFetch(answer);
    const result = await fetchInsights(levelIs("Director"), {
      section: "breakdown",
      groupField: "JOB_LEVEL_PER",
    });
    expect(result.buckets[0]).toEqual({ value: "Director", count: 500 });
    expect(sent[0]?.path).toBe("/api/v2/contact/insights");
    expect(sent[0]?.headers.get("x-csrf")).toBe("1");
    expect(sent[0]?.body).toMatchObject({ section: "breakdown", groupField: "JOB_LEVEL_PER" });
    expect(JSON.stringify(sent[0]?.body)).not.toContain('"id"');
  });
});

describe("InsightsPanel", () => {
  it("waits for the count, then asks for the three sections once", async () => {
    const sent = installFakeFetch(answer);
    const view = renderWithClient(<InsightsPanel {...props({ countSettled: false })} />);
    await advance(2000);
    expect(insightsCalls(sent)).toHaveLength(0);
    expect(screen.getByText("Gathering insights…")).toBeTruthy();
    view.rerender(<InsightsPanel {...props({ countSettled: true })} />);
    await advance(0);
    expect(sections(sent).sort()).toEqual(["breakdown", "fields", "summary"]);
    expect(screen.getByRole("list", { name: "Summary" }).textContent).toContain("1,000 people");
    expect(screen.getByRole("list", { name: "Summary" }).textContent).toContain(
      "80% have an email address (800)",
    );
    expect(screen.getByRole("list", { name: "Summary" }).textContent).toContain("120 companies");
  });

  it("debounces a new filter by 600 ms, ignores a change of ids, and keeps the old figures meanwhile", async () => {
    const sent = installFakeFetch(answer);
    const view = renderWithClient(<InsightsPanel {...props()} />);
    await advance(0);
    expect(insightsCalls(sent)).toHaveLength(3);
    view.rerender(<InsightsPanel {...props({ filter: levelIs("Director", "another-id") })} />);
    await advance(2000);
    expect(insightsCalls(sent)).toHaveLength(3);
    view.rerender(<InsightsPanel {...props({ filter: levelIs("VP") })} />);
    await advance(500);
    expect(insightsCalls(sent)).toHaveLength(3);
    // The previous answer stays on screen, dimmed, while the new audience settles.
    expect(screen.getByRole("list", { name: "Summary" })).toBeTruthy();
    expect(document.querySelector(".insights-summary")?.hasAttribute("data-stale")).toBe(true);
    await advance(150);
    expect(insightsCalls(sent)).toHaveLength(6);
    // Going back to the first audience is answered from the cache at once.
    view.rerender(<InsightsPanel {...props({ filter: levelIs("Director") })} />);
    await advance(0);
    expect(insightsCalls(sent)).toHaveLength(6);
    expect(document.querySelector(".insights-summary")?.hasAttribute("data-stale")).toBe(false);
  });

  it("asks nothing for an unfinished tree and says why", async () => {
    const sent = installFakeFetch(answer);
    renderWithClient(
      <InsightsPanel {...props({ valid: false, blockedBy: "Job level is …: Enter a value." })} />,
    );
    await advance(2000);
    expect(insightsCalls(sent)).toHaveLength(0);
    expect(screen.getByText("Finish the rules to see insights.")).toBeTruthy();
    expect(screen.getByText(/Enter a value/)).toBeTruthy();
  });

  it("asks nothing while closed (a new audience waits), and asks once opened", async () => {
    const sent = installFakeFetch(answer);
    const view = renderWithClient(<InsightsPanel {...props()} />);
    await advance(0);
    expect(insightsCalls(sent)).toHaveLength(3);
    fireEvent.click(screen.getByRole("button", { name: "Hide insights" }));
    expect(screen.queryByRole("list", { name: "Summary" })).toBeNull();
    expect(JSON.parse(localStorage.getItem("ab.insights.v1") ?? "{}").open).toBe(false);
    view.rerender(<InsightsPanel {...props({ filter: levelIs("VP") })} />);
    await advance(2000);
    expect(insightsCalls(sent)).toHaveLength(3);
    fireEvent.click(screen.getByRole("button", { name: "Show insights" }));
    await advance(0);
    expect(screen.getByRole("list", { name: "Summary" })).toBeTruthy();
    expect(insightsCalls(sent)).toHaveLength(6);
  });

  it("draws one bar per row; a row adds its value as a condition (null as 'not given') and says so", async () => {
    installFakeFetch(answer);
    const onAddCondition = vi.fn(() => ({ ok: true as const, changed: true }));
    renderWithClient(<InsightsPanel {...props({ onAddCondition })} />);
    await advance(0);
    const rows = screen.getByRole("list", { name: "People by Job level" });
    const buttons = within(rows).getAllByRole("button");
    // The accessible name: the visible text with words between the columns.
    expect(buttons.map((b) => b.textContent)).toEqual([
      "Director: 500 people, 50%",
      "VP: 300 people, 30%",
      "Not given: 150 people, 15%",
    ]);
    await advance(0); // the lazily loaded chart
    expect(screen.getByTestId("chart").dataset.rows).toBe("3");
    expect(screen.getByText(/All other values/).textContent).toBe("All other values: 50 (5%)");
    fireEvent.click(buttons[1]!);
    expect(onAddCondition).toHaveBeenLastCalledWith("JOB_LEVEL_PER", "VP");
    expect(screen.getByRole("status").textContent).toBe("Added “Job level is VP” to the audience.");
    fireEvent.click(buttons[2]!);
    expect(onAddCondition).toHaveBeenLastCalledWith("JOB_LEVEL_PER", null);
    expect(screen.getByRole("status").textContent).toBe("Added “Job level is not given” to the audience.");
  });

  it("keeps the 'added' notice through the add's own change, and drops it at the next edit", async () => {
    installFakeFetch(answer);
    const view = renderWithClient(<InsightsPanel {...props()} />);
    await advance(0);
    fireEvent.click(screen.getByRole("button", { name: /^VP:/ }));
    // The page applies the add: a new audience.
    view.rerender(<InsightsPanel {...props({ filter: levelIs("VP") })} />);
    await advance(0);
    expect(screen.getByRole("status").textContent).toBe("Added “Job level is VP” to the audience.");
    // Another change (an undo, an edit): the notice no longer describes what is on screen.
    view.rerender(<InsightsPanel {...props({ filter: levelIs("Director") })} />);
    await advance(0);
    expect(screen.getByRole("status").textContent).toBe("");
  });

  it("says when the value is already a rule, or could not be added", async () => {
    installFakeFetch(answer);
    const results = [
      { ok: true as const, changed: false },
      { ok: false as const, error: "That would nest the filter 33 levels deep." },
    ];
    renderWithClient(<InsightsPanel {...props({ onAddCondition: () => results.shift() })} />);
    await advance(0);
    const director = screen.getByRole("button", { name: /^Director:/ });
    fireEvent.click(director);
    expect(screen.getByRole("status").textContent).toBe(
      "“Job level is Director” is already part of the audience.",
    );
    fireEvent.click(director);
    expect(screen.getByRole("status").textContent).toMatch(/could not be added: That would nest/);
  });

  it("lists band columns in band order, 'Not given' last; changing the field asks for it", async () => {
    const sent = installFakeFetch(answer);
    renderWithClient(<InsightsPanel {...props()} />);
    await advance(0);
    fireEvent.change(screen.getByRole("combobox", { name: "Break down by" }), {
      target: { value: "EMPLOYEE_COUNT_RANGE_ORG" },
    });
    await advance(0);
    expect(
      insightsCalls(sent)
        .map((r) => (r.body as Body).groupField)
        .filter(Boolean),
    ).toEqual(["JOB_LEVEL_PER", "EMPLOYEE_COUNT_RANGE_ORG"]);
    const rows = screen.getByRole("list", { name: "People by Employee range" });
    expect(
      within(rows)
        .getAllByRole("button")
        .map((b) => b.getAttribute("data-value")),
    ).toEqual(["1-10", "51-200", "10001+", "Not given"]);
  });

  it("shows a readable error with a way to try again", async () => {
    let fail = true;
    installFakeFetch((request) => {
      if ((request.body as Body).section === "breakdown" && fail)
        return json(
          {
            detail: [
              {
                type: "value_error",
                loc: ["body", "groupField"],
                msg: "EMAIL_ADDRESS_PER is masked and cannot be grouped",
                input: "EMAIL_ADDRESS_PER",
              },
            ],
          },
          { status: 422 },
        );
      return answer(request);
    });
    renderWithClient(<InsightsPanel {...props()} />);
    await advance(0);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("The breakdown could not be loaded:");
    expect(alert.textContent).toContain("groupField: EMAIL_ADDRESS_PER is masked and cannot be grouped");
    fail = false;
    await act(async () => {
      fireEvent.click(within(alert).getByRole("button", { name: "Try again" }));
    });
    await advance(0);
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("button", { name: /^Director:/ })).toBeTruthy();
  });
});
