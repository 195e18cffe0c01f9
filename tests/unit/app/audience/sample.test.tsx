// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SamplePanel } from "../../../../src/app/features/audience/sample-panel";
import {
  DEFAULT_SAMPLE_SETTINGS,
  SAMPLE_SETTINGS_STORAGE_KEY,
} from "../../../../src/app/features/audience/sample-settings";
import { formatTime } from "../../../../src/app/lib/format";
import {
  addToSelection,
  getSelection,
  reloadSelection,
  SELECTIONS_STORAGE_KEY,
  type SelectionAudience,
} from "../../../../src/app/lib/selection";
import { DEFAULT_VIEW_COLUMNS } from "../../../../src/contract/inferred";
import { nextUtcMidnight } from "../../../../src/contract/time";
import {
  advance,
  installAudienceOf,
  installFakeFetch,
  json,
  levelIs,
  renderWithClient,
  type SentRequest,
  sentValue,
} from "./harness";

const ROWS = [
  {
    RBID_PAO: "pao-1",
    FULL_NAME_PER: "Ada Lovelace",
    JOB_TITLE_PER: "Director of Engineering",
    COMPANY_NAME_ORG: "Analytical Engines",
    hasEmail: true,
    hasMobile: false,
    score: 0.873,
  },
  {
    RBID_PAO: "pao-2",
    FULL_NAME_PER: "Grace Hopper",
    JOB_TITLE_PER: "Director, Compilers",
    COMPANY_NAME_ORG: "Navy Labs",
    hasEmail: false,
    hasMobile: true,
    score: null,
  },
  {
    RBID_PAO: "pao-3",
    FULL_NAME_PER: "Edsger Dijkstra",
    JOB_TITLE_PER: "Director",
    COMPANY_NAME_ORG: "Mathematisch Centrum",
    hasEmail: true,
    hasMobile: true,
    score: 0.5,
  },
];

const LABELS: Record<string, string> = {
  RBID_PAO: "Contact ID",
  FULL_NAME_PER: "Full name",
  JOB_TITLE_PER: "Job title",
  COMPANY_NAME_ORG: "Company",
  hasEmail: "Has email",
  hasMobile: "Has mobile",
  score: "Similarity",
};

/** A View answer shaped like the service's, for what the request asked. */
function viewAnswer(request: SentRequest, options: { rows?: typeof ROWS; remaining?: number } = {}) {
  const body = request.body as { limit: number; includeScores: boolean };
  const columns = ["RBID_PAO", "FULL_NAME_PER", "JOB_TITLE_PER", "COMPANY_NAME_ORG", "hasEmail", "hasMobile"];
  if (body.includeScores) columns.push("score");
  const rows = (options.rows ?? ROWS).map((row) =>
    Object.fromEntries(columns.map((c) => [c, row[c as keyof typeof row]])),
  );
  return json(
    {
      rows,
      columns,
      columnLabels: Object.fromEntries(columns.map((c) => [c, LABELS[c] ?? c])),
      rowCount: rows.length,
      limit: body.limit,
    },
    { headers: { "X-FreePreview-Remaining": String(options.remaining ?? 93_450) } },
  );
}

function views(sent: SentRequest[]) {
  return sent.filter((request) => request.path === "/api/v2/contact/view");
}

const DAY = "2025-03-10T21:00:00.000Z";

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date(DAY));
  window.localStorage.clear();
  reloadSelection();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("SamplePanel: when samples are taken", () => {
  it("takes the first sample as it mounts, with the default size and columns", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    expect(views(sent)).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({
      limit: 25,
      includeScores: false,
      columns: [...DEFAULT_VIEW_COLUMNS],
      filter: { type: "group", children: [{ column: "JOB_LEVEL_PER", value: "Director" }] },
    });
    expect(screen.getByRole("region", { name: /Sample of 3 people/ })).toBeTruthy();
    expect(screen.getByText("Ada Lovelace")).toBeTruthy();
  });

  it("is not requested per keystroke: only once the audience stays unchanged for 1.5 s", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    const view = renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    for (const value of ["D", "Di", "Dir", "VP"]) {
      view.rerender(<SamplePanel filter={levelIs(value)} valid />);
      await advance(500);
    }
    expect(views(sent)).toHaveLength(1);
    expect(screen.getByText(/a new sample is taken when you pause editing/)).toBeTruthy();
    // The sample on screen is for the previous audience: dimmed.
    expect(screen.getByRole("region", { name: /Sample of/ }).dataset.dimmed).toBe("true");
    await advance(999);
    expect(views(sent)).toHaveLength(1);
    await advance(1);
    expect(views(sent)).toHaveLength(2);
    expect(sentValue(sent[1])).toBe("VP");
    await advance(10_000);
    expect(views(sent)).toHaveLength(2);
  });

  it("going back to the sampled audience before it settles takes no new sample", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    const view = renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    view.rerender(<SamplePanel filter={levelIs("VP")} valid />);
    await advance(800);
    view.rerender(<SamplePanel filter={levelIs("Director", "new-id")} valid />);
    await advance(5000);
    expect(views(sent)).toHaveLength(1);
  });

  it("an incomplete audience takes no sample and says why", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    renderWithClient(
      <SamplePanel filter={levelIs("")} valid={false} blockedBy="Fix 'Job level': choose a value" />,
    );
    await advance(5000);
    expect(views(sent)).toHaveLength(0);
    expect(screen.getByText(/Fix 'Job level': choose a value/)).toBeTruthy();
    expect((screen.getByRole("button", { name: "Sample again" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("a tree that becomes valid while typing waits to settle too", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    const view = renderWithClient(<SamplePanel filter={levelIs("")} valid={false} />);
    await advance(0);
    view.rerender(<SamplePanel filter={levelIs("D")} valid />);
    await advance(500);
    view.rerender(<SamplePanel filter={levelIs("Di")} valid />);
    await advance(1499);
    expect(views(sent)).toHaveLength(0);
    await advance(1);
    expect(views(sent)).toHaveLength(1);
    expect(sentValue(sent[0])).toBe("Di");
  });

  it('"Sample again" takes a new sample of the same audience, and says it spends budget and is no next page', async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    const again = screen.getByRole("button", { name: "Sample again" });
    const hint = document.getElementById(again.getAttribute("aria-describedby") ?? "")?.textContent ?? "";
    expect(hint).toMatch(/different random 25 people, not a next page/);
    expect(hint).toMatch(/Spends up to 25 rows of today's free sample budget/);
    fireEvent.click(again);
    await advance(0);
    expect(views(sent)).toHaveLength(2);
    expect(sent[1]?.body).toEqual(sent[0]?.body);
    fireEvent.click(again);
    await advance(0);
    expect(views(sent)).toHaveLength(3);
  });
});

describe("SamplePanel: what it shows", () => {
  it("shows the day's remaining budget as a meter, with the reset in local time", async () => {
    installFakeFetch((request) => viewAnswer(request, { remaining: 93_450 }));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    expect(screen.getByText(/93,450 of 100,000 sample rows left today/)).toBeTruthy();
    const local = formatTime(nextUtcMidnight(Date.parse(DAY)));
    expect(screen.getByText(new RegExp(`resets at ${local}, your time`))).toBeTruthy();
    const meter = screen.getByRole("meter", { name: "Free sample budget" }) as HTMLMeterElement;
    expect(meter.value).toBe(93_450);
    expect(meter.max).toBe(100_000);
  });

  it("FREE_PREVIEW_CAP_REACHED: a clear state with a live countdown, and no automatic samples meanwhile", async () => {
    const sent = installFakeFetch(() =>
      json(
        {
          detail: "Daily free preview budget exhausted.",
          code: "FREE_PREVIEW_CAP_REACHED",
          resetAt: "2025-03-11T00:00:00Z",
        },
        { status: 429, headers: { "X-FreePreview-Remaining": "0" } },
      ),
    );
    const view = renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    expect(screen.getByRole("heading", { name: "Today's free sample budget is used up" })).toBeTruthy();
    expect(screen.getByRole("timer").textContent).toBe("3 h 00 min 00 s");
    expect(screen.getByText(/0 of 100,000 sample rows left today/)).toBeTruthy();
    await advance(1000);
    expect(screen.getByRole("timer").textContent).toBe("2 h 59 min 59 s");
    await advance(61_000);
    expect(screen.getByRole("timer").textContent).toBe("2 h 58 min 58 s");
    expect((screen.getByRole("button", { name: "Sample again" }) as HTMLButtonElement).disabled).toBe(true);
    view.rerender(<SamplePanel filter={levelIs("VP")} valid />);
    await advance(5000);
    expect(views(sent)).toHaveLength(1);
  });

  it("an empty audience gets an empty state", async () => {
    installFakeFetch((request) => viewAnswer(request, { rows: [] }));
    renderWithClient(<SamplePanel filter={levelIs("Astronaut")} valid />);
    await advance(0);
    expect(screen.getByRole("heading", { name: "No one matches this audience yet" })).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("shows a loading skeleton, then a readable error with a retry", async () => {
    let answer: () => Response = () => json({ detail: "The service is down." }, { status: 403 });
    const sent = installFakeFetch((request) => {
      const now = answer;
      return new Promise<Response>((resolve) =>
        setTimeout(() => resolve(now === answer ? answer() : viewAnswer(request)), 50),
      );
    });
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByText("Taking a sample…")).toBeTruthy();
    await advance(100);
    expect(screen.getByRole("alert").textContent).toContain("The service is down.");
    answer = () => viewAnswer(sent[0]!);
    fireEvent.click(screen.getByRole("button", { name: /Try again/ }));
    await advance(100);
    expect(views(sent)).toHaveLength(2);
    expect(screen.getByText("Ada Lovelace")).toBeTruthy();
  });

  it("shows the email and mobile flags as an icon with words, and scores as percentages", async () => {
    window.localStorage.setItem(
      SAMPLE_SETTINGS_STORAGE_KEY,
      JSON.stringify({ ...DEFAULT_SAMPLE_SETTINGS, includeScores: true }),
    );
    installFakeFetch((request) => viewAnswer(request));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    const ada = screen.getByText("Ada Lovelace").closest("tr")!;
    // The icon is decoration; the words carry the meaning.
    expect(
      within(ada)
        .getAllByText("✓")
        .every((icon) => icon.getAttribute("aria-hidden") === "true"),
    ).toBe(true);
    expect(ada.textContent).toContain("✓ Email");
    expect(ada.textContent).toContain("— No mobile");
    expect(ada.textContent).toContain("87%");
    const grace = screen.getByText("Grace Hopper").closest("tr")!;
    expect(grace.textContent).toContain("— No email");
    expect(within(screen.getByRole("table")).getByRole("columnheader", { name: "Similarity" })).toBeTruthy();
  });
});

describe("SamplePanel: settings are used by the next sample, never a trigger", () => {
  it("a new size is persisted, takes no sample by itself, and applies on Apply", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    const view = renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    fireEvent.change(screen.getByLabelText("Sample size"), { target: { value: "50" } });
    fireEvent.click(screen.getByLabelText(/Similarity scores/));
    await advance(5000);
    expect(views(sent)).toHaveLength(1);
    expect(JSON.parse(window.localStorage.getItem(SAMPLE_SETTINGS_STORAGE_KEY) ?? "{}")).toMatchObject({
      limit: 50,
      includeScores: true,
    });
    expect(screen.getByText(/apply by themselves the next time you change the audience/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: /Apply now \(spends up to 50 rows\)/ }));
    await advance(0);
    expect(views(sent)).toHaveLength(2);
    expect(sent[1]?.body).toMatchObject({ limit: 50, includeScores: true });
    expect(screen.queryByText(/apply by themselves/)).toBeNull();
    // Remembered across a reload.
    view.unmount();
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid={false} />);
    expect((screen.getByLabelText("Sample size") as HTMLSelectElement).value).toBe("50");
  });

  it("new settings also apply at the next settle", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    const view = renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    fireEvent.change(screen.getByLabelText("Sample size"), { target: { value: "10" } });
    view.rerender(<SamplePanel filter={levelIs("VP")} valid />);
    await advance(1500);
    expect(views(sent)).toHaveLength(2);
    expect(sent[1]?.body).toMatchObject({ limit: 10 });
  });

  it("the column chooser (keyboard) adds a column to the next sample", async () => {
    const sent = installFakeFetch((request) => viewAnswer(request));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid />);
    await advance(0);
    // The contact id is asked for (rows are selected by it) but not shown until chosen.
    expect(sent[0]?.body).toMatchObject({ columns: [...DEFAULT_VIEW_COLUMNS] });
    expect(screen.queryByRole("columnheader", { name: "Contact ID" })).toBeNull();
    const trigger = screen.getByRole("button", { name: /Columns \(7\)/ });
    trigger.focus();
    fireEvent.keyDown(trigger, { key: "Enter" });
    await advance(0);
    const item = screen.getByRole("menuitemcheckbox", { name: "Company domain" });
    expect(item.getAttribute("aria-checked")).toBe("false");
    fireEvent.click(item);
    await advance(0);
    expect(
      screen.getByRole("menuitemcheckbox", { name: "Company domain" }).getAttribute("aria-checked"),
    ).toBe("true");
    fireEvent.keyDown(screen.getByRole("menu"), { key: "Escape" });
    await advance(0);
    expect(screen.getByRole("button", { name: /Columns \(8\)/ })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: /Apply now/ }));
    await advance(0);
    expect(sent[1]?.body).toMatchObject({ columns: [...DEFAULT_VIEW_COLUMNS, "DOMAIN_ORG"] });
  });
});

/** The audience the Builder would name (lib/selection.ts); any key will do here. */
const AUDIENCE: SelectionAudience = { key: "saved:aud_1", tree: "t1" };

describe("SamplePanel: row selection", () => {
  it("ticks rows by RBID_PAO into the audience's persisted selection; select all on the page; clear", async () => {
    installFakeFetch((request) => viewAnswer(request));
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid audience={AUDIENCE} />);
    await advance(0);
    fireEvent.click(screen.getByRole("checkbox", { name: "Select Grace Hopper" }));
    expect(getSelection(AUDIENCE).ids).toEqual(["pao-2"]);
    expect(getSelection(AUDIENCE).names).toEqual({ "pao-2": "Grace Hopper" });
    expect(screen.getByText(/1 contact selected \(1 in this sample\)/)).toBeTruthy();
    const all = screen.getByRole("checkbox", { name: "Select every row of this sample" }) as HTMLInputElement;
    expect(all.indeterminate).toBe(true);
    fireEvent.click(all);
    expect(screen.getByText(/3 contacts selected/)).toBeTruthy();
    expect(getSelection(AUDIENCE).ids).toHaveLength(3);
    expect(window.localStorage.getItem(SELECTIONS_STORAGE_KEY)).toContain("pao-3");
    fireEvent.click(screen.getByRole("button", { name: "Clear selection" }));
    expect(window.localStorage.getItem(SELECTIONS_STORAGE_KEY)).toBeNull();
    expect(screen.getByText(/No contacts selected/)).toBeTruthy();
  });

  it("shows only the audience's own ticks", async () => {
    addToSelection({ key: "saved:other", tree: "t2" }, ["pao-1", "pao-2"]);
    addToSelection(AUDIENCE, ["pao-3"]);
    installFakeFetch((request) =>
      request.path === "/api/v2/contact/count" ? json({ count: 1, mode: "exact" }) : viewAnswer(request),
    );
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid audience={AUDIENCE} />);
    // The count and the sample answer together: a few ms let both land.
    await advance(50);
    expect(screen.getByText(/1 contact selected \(1 in this sample\)/)).toBeTruthy();
    expect((screen.getByRole("checkbox", { name: "Select Ada Lovelace" }) as HTMLInputElement).checked).toBe(
      false,
    );
    expect(
      (screen.getByRole("checkbox", { name: "Select Edsger Dijkstra" }) as HTMLInputElement).checked,
    ).toBe(true);
  });

  it("says how many selected people left the audience (checked for free once the ticks pause), and unticks them", async () => {
    addToSelection(AUDIENCE, ["pao-1", "gone-1", "gone-2", "gone-3", "gone-4"]);
    const sent = installAudienceOf(["pao-1", "pao-2", "pao-3"], viewAnswer);
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid audience={AUDIENCE} />);
    await advance(50);
    expect(screen.getByTestId("selection-left").textContent).toBe(
      "4 of 5 selected people left the audience after your edits; 1 will be bought. Checkout marks them and leaves them out of every purchase. Untick the 4",
    );
    expect(screen.getByRole("link", { name: "Buy the 1 still in it" })).toBeTruthy();
    const checks = () =>
      sent.filter((request) => JSON.stringify(request.body).includes('"column":"RBID_PAO","operator":"in"'));
    // A count, then a View of the ids (some left): free of credits.
    expect(checks().map((request) => request.path)).toEqual([
      "/api/v2/contact/count",
      "/api/v2/contact/view",
    ]);
    // Ticking more is checked once the ticks pause, not per tick.
    fireEvent.click(screen.getByRole("checkbox", { name: "Select Grace Hopper" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Select Edsger Dijkstra" }));
    await advance(100);
    expect(checks()).toHaveLength(2);
    expect(screen.queryByTestId("selection-left")).toBeNull();
    await advance(800);
    expect(checks()).toHaveLength(4);
    expect(screen.getByTestId("selection-left").textContent).toMatch(/^4 of 7 selected people left/);
    fireEvent.click(screen.getByRole("button", { name: "Untick the 4" }));
    expect(getSelection(AUDIENCE).ids).toEqual(["pao-1", "pao-2", "pao-3"]);
  });

  it("marks a ticked row of the sample shown that is no longer in the audience", async () => {
    addToSelection(AUDIENCE, ["pao-1", "pao-2"]);
    installAudienceOf(["pao-1"], viewAnswer);
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid audience={AUDIENCE} />);
    await advance(50);
    const grace = screen.getByRole("checkbox", { name: "Select Grace Hopper" }).closest("tr")!;
    expect(grace.getAttribute("data-left")).toBe("true");
    expect(grace.textContent).toContain("No longer in this audience");
    const ada = screen.getByRole("checkbox", { name: "Select Ada Lovelace" }).closest("tr")!;
    expect(ada.textContent).not.toContain("No longer in this audience");
    expect(screen.getByRole("button", { name: "Untick them" })).toBeTruthy();
  });

  it("says clearly when the 1,000 cap leaves rows out", async () => {
    addToSelection(
      AUDIENCE,
      Array.from({ length: 999 }, (_, i) => `other-${i}`),
    );
    reloadSelection();
    installAudienceOf(["pao-1", "pao-2", "pao-3"], viewAnswer);
    renderWithClient(<SamplePanel filter={levelIs("Director")} valid audience={AUDIENCE} />);
    await advance(50);
    fireEvent.click(screen.getByRole("checkbox", { name: "Select every row of this sample" }));
    expect(screen.getByText(/1,000 contacts selected/)).toBeTruthy();
    expect(screen.getByText(/holds at most 1,000 contacts: 2 were not added/)).toBeTruthy();
  });
});
