// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { foldedList } from "../../../../src/app/features/builder/editor/value-list";
import { VALUE_LIST_MAX } from "../../../../src/contract/inferred";
import { breakdown, cond, group, installDomShims, installFakeFetch, json, renderEditor } from "./harness";

beforeAll(installDomShims);
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("building a condition", () => {
  it("picks a column from the searchable list, an operator in plain words and a value", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([], { id: "root" }));
    await user.click(screen.getByRole("button", { name: "Add condition to the whole filter" }));

    // Focus lands on the new condition's column picker: type to filter, arrows, Enter.
    const picker = screen.getByRole("combobox", { name: "Field of condition 1" });
    expect(document.activeElement).toBe(picker);
    await user.type(picker, "job");
    const listbox = screen.getByRole("listbox", { name: "Field of condition 1" });
    expect(within(listbox).getByRole("group", { name: "Person" })).toBeTruthy();
    expect(
      within(listbox)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Job title", "Job level", "Job function"]);
    await user.keyboard("{ArrowDown}{Enter}");
    expect(tree().children[0]).toMatchObject({ column: "JOB_LEVEL_PER" });
    expect(picker).toHaveProperty("value", "Job level");

    const operator = screen.getByRole("combobox", { name: "Comparison of condition 1" });
    const words = within(operator)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(words).toEqual([
      "is",
      "is not",
      "contains",
      "starts with",
      "ends with",
      "is one of",
      "is none of",
      "is empty",
      "is known",
    ]);
    await user.selectOptions(operator, "contains");
    await user.type(screen.getByRole("textbox", { name: "Value of condition 1" }), "Director");
    expect(tree().children[0]).toMatchObject({
      type: "condition",
      column: "JOB_LEVEL_PER",
      operator: "contains",
      value: "Director",
    });
  });

  it("groups the catalogue under Person and Company with its labels", async () => {
    const user = userEvent.setup();
    renderEditor(group([cond("a")]));
    await user.click(screen.getByRole("combobox", { name: "Field of condition 1" }));
    const listbox = screen.getByRole("listbox", { name: "Field of condition 1" });
    const company = within(listbox).getByRole("group", { name: "Company" });
    expect(within(company).getByRole("option", { name: /Industry/ })).toBeTruthy();
    expect(within(company).getByRole("option", { name: /Employees \(min\)/ }).textContent).toContain(
      "number",
    );
    await user.keyboard("{Escape}");
    expect(screen.getByRole("combobox", { name: "Field of condition 1" }).getAttribute("aria-expanded")).toBe(
      "false",
    );
  });

  it("offers only has / has not on masked columns", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a")]));
    const picker = screen.getByRole("combobox", { name: "Field of condition 1" });
    await user.type(picker, "Email");
    await user.keyboard("{Enter}");
    expect(tree().children[0]).toMatchObject({ column: "EMAIL_ADDRESS_PER", operator: "isNotNull" });
    expect(tree().children[0]).not.toHaveProperty("value");
    const operator = screen.getByRole("combobox", { name: "Comparison of condition 1" });
    expect(
      within(operator)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["has not", "has"]);
    expect(screen.queryByRole("combobox", { name: "Value of condition 1" })).toBeNull();
  });

  it("takes whole numbers, a between pair, and shows the reason in place for anything else", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(
      group([{ type: "condition", id: "c", column: "FOUNDED_ORG", operator: "eq", value: 2001 }]),
    );
    const value = screen.getByRole("textbox", { name: "Value of condition 1" });
    expect(value.getAttribute("aria-invalid")).toBeNull();
    await user.clear(value);
    await user.type(value, "19.5");
    expect(tree().children[0]).toMatchObject({ value: "19.5" });
    expect(value.getAttribute("aria-invalid")).toBe("true");
    const describedBy = value.getAttribute("aria-describedby");
    expect(describedBy).toBeTruthy();
    expect(document.getElementById(describedBy!)?.textContent).toBe("Enter a whole number.");
    // The row says the same for the lead's "what blocks sending".
    expect(screen.getByText(/1 item needs attention/)).toBeTruthy();

    await user.clear(value);
    await user.type(value, "1990");
    expect(tree().children[0]).toMatchObject({ value: 1990 });
    expect(value.getAttribute("aria-invalid")).toBeNull();
    expect(screen.queryByText(/needs attention/)).toBeNull();

    await user.selectOptions(screen.getByRole("combobox", { name: "Comparison of condition 1" }), "between");
    const high = screen.getByRole("textbox", { name: "Highest value of condition 1" });
    expect(screen.getByRole("textbox", { name: "Lowest value of condition 1" })).toHaveProperty(
      "value",
      "1990",
    );
    expect(document.getElementById(high.getAttribute("aria-describedby")!)?.textContent).toBe(
      "Enter a whole number for the upper end.",
    );
    await user.type(high, "2000");
    expect(tree().children[0]).toMatchObject({ operator: "between", value: 1990, value2: 2000 });
  });

  it("shows a missing value in place and the editor names the node that blocks sending", async () => {
    const user = userEvent.setup();
    const { editor } = renderEditor(
      group([cond("ok"), { type: "condition", id: "bad", column: "", operator: "eq", value: "x" }]),
    );
    const picker = screen.getByRole("combobox", { name: "Field of condition 2" });
    expect(picker.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(picker.getAttribute("aria-describedby")!)?.textContent).toBe(
      "Choose a column.",
    );
    expect(editor().blocking).toMatchObject({ id: "bad", path: [1], message: "Choose a column." });
    await user.click(screen.getByRole("button", { name: "Show" }));
    expect(document.activeElement).toBe(picker);
  });
});

describe("lists of values", () => {
  it("takes a pasted list: split on commas, new lines and tabs, deduplicated", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(
      group([
        { type: "condition", id: "c", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["France"] },
      ]),
    );
    const input = screen.getByRole("combobox", { name: "Values of condition 1" });
    await user.click(input);
    await user.paste("Germany, france\nSpain\tItaly\n\nGermany");
    expect(tree().children[0]).toMatchObject({ valueList: ["France", "Germany", "Spain", "Italy"] });
    expect(screen.getByText("2 duplicates skipped.")).toBeTruthy();
    // Typed entries: Enter or a comma adds; Backspace in the empty field removes the last chip.
    await user.type(input, "Peru,");
    await user.type(input, "Chile{Enter}");
    expect(tree().children[0]).toMatchObject({
      valueList: ["France", "Germany", "Spain", "Italy", "Peru", "Chile"],
    });
    await user.type(input, "{Backspace}");
    await user.click(screen.getByRole("button", { name: "Remove Germany" }));
    expect(tree().children[0]).toMatchObject({ valueList: ["France", "Spain", "Italy", "Peru"] });
  });

  it("a folded list says its values in words and how many more; focus opens it, every chip", async () => {
    const user = userEvent.setup();
    renderEditor(
      group([
        {
          type: "condition",
          id: "c",
          column: "COUNTRY_NAME_PER",
          operator: "in",
          valueList: ["United Kingdom", "United States", "Germany"],
        },
      ]),
    );
    const folded = document.querySelector(".fe-chips-folded");
    expect(folded?.textContent).toBe("United Kingdom, United States+1");
    expect(folded?.getAttribute("title")).toBe("United Kingdom, United States, Germany");
    await user.click(folded!);
    expect(document.activeElement).toBe(screen.getByRole("combobox", { name: "Values of condition 1" }));
    expect(document.querySelector(".fe-chips-folded")).toBeNull();
    expect(screen.getByRole("button", { name: "Remove Germany" })).toBeTruthy();
  });

  it("names at least one value, however long, and the count of the rest", () => {
    expect(foldedList(["A very long organisation name that fills the line", "B"])).toEqual({
      names: "A very long organisation name that fills the line",
      more: 1,
    });
    expect(foldedList(["Germany", "France", "Spain"])).toEqual({ names: "Germany, France, Spain", more: 0 });
    expect(foldedList([])).toEqual({ names: "", more: 0 });
  });

  it(`keeps at most ${VALUE_LIST_MAX} values and says how many were left out`, () => {
    const { tree } = renderEditor(
      group([{ type: "condition", id: "c", column: "COUNTRY_NAME_PER", operator: "in", valueList: [] }]),
    );
    const input = screen.getByRole("combobox", { name: "Values of condition 1" });
    const pasted = Array.from({ length: VALUE_LIST_MAX + 5 }, (_, i) => `v${i}`).join("\n");
    fireEvent.paste(input, { clipboardData: { getData: () => pasted } });
    const first = tree().children[0];
    expect(first?.type === "condition" && first.valueList?.length).toBe(VALUE_LIST_MAX);
    expect(screen.getByText("A list holds at most 10,000 values: 5 were left out.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Show all 10000" })).toBeTruthy();
  });

  it("switching is → is one of carries the value into the list", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("c", "COUNTRY_NAME_PER", "France")]));
    await user.selectOptions(screen.getByRole("combobox", { name: "Comparison of condition 1" }), "in");
    expect(tree().children[0]).toEqual({
      type: "condition",
      id: "c",
      column: "COUNTRY_NAME_PER",
      operator: "in",
      valueList: ["France"],
    });
  });
});

describe("suggestion lists", () => {
  /** Insights answering the country breakdown: the suggestions of COUNTRY_NAME_PER. */
  const countries = () =>
    installFakeFetch((request) =>
      request.path === "/api/v2/contact/insights"
        ? breakdown("COUNTRY_NAME_PER", [
            { value: "Germany", count: 600 },
            { value: "Georgia", count: 300 },
            { value: "France", count: 100 },
            { value: "Ukraine", count: 50 },
            { value: "Algeria", count: 40 },
          ])
        : json({ detail: "unexpected" }, 404),
    );
  /** The list of countries rendered with the suggestions above, and its entry field. */
  const countryList = () => {
    countries();
    const user = userEvent.setup();
    const { tree } = renderEditor(
      group([{ type: "condition", id: "c", column: "COUNTRY_NAME_PER", operator: "in", valueList: [] }]),
    );
    const input = screen.getByRole("combobox", { name: "Values of condition 1" });
    const listbox = () => screen.getByRole("listbox", { name: "Values of condition 1" });
    const highlighted = () => within(listbox()).queryByRole("option", { selected: true });
    /** Types `text` and waits until the suggestion `expected` is highlighted. */
    const typeUntilHighlighted = async (text: string, expected: RegExp) => {
      await user.type(input, text);
      await waitFor(() => expect(highlighted()?.textContent).toMatch(expected));
    };
    return { user, tree, input, listbox, highlighted, typeUntilHighlighted };
  };

  it("Enter takes the suggestion the typed text begins, highlighted, not the text as typed", async () => {
    const { user, tree, input, highlighted, typeUntilHighlighted } = countryList();
    await typeUntilHighlighted("Ger", /^Germany/);
    expect(input.getAttribute("aria-activedescendant")).toBe(highlighted()?.id);
    await user.keyboard("{Enter}");
    expect(tree().children[0]).toMatchObject({ valueList: ["Germany"] });
    expect((input as HTMLInputElement).value).toBe("");
  });

  it("Down moves on from the highlighted suggestion; Tab takes it and moves on", async () => {
    const { user, tree, input, highlighted, typeUntilHighlighted } = countryList();
    await typeUntilHighlighted("Ger", /^Germany/);
    await user.keyboard("{ArrowDown}");
    expect(highlighted()?.textContent).toMatch(/^Algeria/);
    await user.keyboard("{Tab}");
    expect(tree().children[0]).toMatchObject({ valueList: ["Algeria"] });
    expect(document.activeElement).not.toBe(input);
  });

  it("a short text, or one no suggestion begins, is taken as typed; Escape, then Enter, takes a begun one as typed", async () => {
    const { user, tree, input, listbox, highlighted, typeUntilHighlighted } = countryList();
    // "UK" begins "Ukraine", but two letters are an abbreviation more often than a start.
    await user.type(input, "UK");
    await waitFor(() => expect(within(listbox()).getByRole("option").textContent).toMatch(/^Ukraine/));
    expect(highlighted()).toBeNull();
    await user.keyboard("{Enter}");
    expect(tree().children[0]).toMatchObject({ valueList: ["UK"] });
    await typeUntilHighlighted("Fra", /^France/);
    await user.keyboard("{Escape}{Enter}");
    expect(tree().children[0]).toMatchObject({ valueList: ["UK", "Fra"] });
  });
});

describe("enumerable company columns", () => {
  it("offer the server's values with typeahead, with how many people carry each", async () => {
    const sent = installFakeFetch((request) =>
      request.path === "/api/v2/contact/company/columns/INDUSTRY_LINKEDIN_ORG/values"
        ? json({
            column: "INDUSTRY_LINKEDIN_ORG",
            values: ["Financial Services", "Software Development", "Staffing and Recruiting"],
            count: 3,
          })
        : request.path === "/api/v2/contact/insights"
          ? breakdown("INDUSTRY_LINKEDIN_ORG", [
              { value: "Software Development", count: 1200 },
              { value: "Financial Services", count: 300 },
            ])
          : json({ detail: "unexpected" }, 404),
    );
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("c", "INDUSTRY_LINKEDIN_ORG", "")]));
    const value = screen.getByRole("combobox", { name: "Value of condition 1" });
    await user.type(value, "s");
    const listbox = screen.getByRole("listbox", { name: "Value of condition 1" });
    await waitFor(() => expect(within(listbox).getAllByRole("option")).toHaveLength(3));
    await waitFor(() =>
      expect(
        within(listbox)
          .getAllByRole("option")
          .map((o) => o.textContent),
      ).toEqual([
        "Financial Services300 people",
        "Software Development1,200 people",
        "Staffing and Recruiting",
      ]),
    );
    await user.type(value, "of");
    expect(
      within(listbox)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Software Development1,200 people"]);
    await user.keyboard("{ArrowDown}{Enter}");
    expect(tree().children[0]).toMatchObject({ value: "Software Development" });
    expect(sent.filter((r) => r.method === "GET").map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/v2/contact/company/columns/INDUSTRY_LINKEDIN_ORG/values",
    ]);
  });

  it("suggest values for a list too, and a failed load says so", async () => {
    installFakeFetch(() => json({ detail: "Not allowed." }, 403));
    const user = userEvent.setup();
    renderEditor(
      group([{ type: "condition", id: "c", column: "REVENUE_RANGE_ORG", operator: "in", valueList: [] }]),
    );
    await user.click(screen.getByRole("combobox", { name: "Values of condition 1" }));
    await user.keyboard("{ArrowDown}");
    expect(await screen.findByText(/Could not load the values/)).toBeTruthy();
  });
});

describe("undo", () => {
  it("merges a burst of typing in one field into one step; Ctrl+Z works inside the field", async () => {
    const user = userEvent.setup();
    const { tree, editor } = renderEditor(group([cond("c", "COUNTRY_NAME_PER", "")]));
    const value = screen.getByRole("combobox", { name: "Value of condition 1" });
    await user.type(value, "Spain");
    expect(tree().children[0]).toMatchObject({ value: "Spain" });
    await user.selectOptions(screen.getByRole("combobox", { name: "Comparison of condition 1" }), "contains");
    await user.click(value);
    await user.keyboard("{Control>}z{/Control}");
    expect(tree().children[0]).toMatchObject({ operator: "eq", value: "Spain" });
    await user.keyboard("{Control>}z{/Control}");
    expect(tree().children[0]).toMatchObject({ operator: "eq", value: "" });
    expect(editor().canUndo).toBe(false);
    await user.keyboard("{Control>}{Shift>}z{/Shift}{/Control}");
    expect(tree().children[0]).toMatchObject({ value: "Spain" });
    await user.keyboard("{Control>}y{/Control}");
    expect(tree().children[0]).toMatchObject({ operator: "contains" });
    await user.click(screen.getByRole("button", { name: "Undo" }));
    expect(tree().children[0]).toMatchObject({ operator: "eq" });
  });

  it("starts a new step after a pause in typing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { tree, editor } = renderEditor(group([cond("c", "COUNTRY_NAME_PER", "")]));
    const value = screen.getByRole("combobox", { name: "Value of condition 1" });
    fireEvent.change(value, { target: { value: "Fr" } });
    act(() => vi.advanceTimersByTime(5000));
    fireEvent.change(value, { target: { value: "France" } });
    act(() => editor().undo());
    expect(tree().children[0]).toMatchObject({ value: "Fr" });
  });
});
