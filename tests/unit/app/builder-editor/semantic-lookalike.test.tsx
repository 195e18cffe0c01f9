// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MATCH_LEVEL_TEXT, MATCH_LEVELS } from "../../../../src/contract/inferred";
import { group, installDomShims, installFakeFetch, json, renderEditor } from "./harness";

beforeAll(installDomShims);
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("similarity matches", () => {
  it("edit the text and the match level, with a line saying what the level means", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(
      group([{ type: "semantic", id: "s", on: "title", text: "", match: "similar", negate: false }]),
    );
    const text = screen.getByRole("textbox", { name: "Job title for job title match 1" });
    expect(document.getElementById(text.getAttribute("aria-describedby")!)?.textContent).toBe(
      "Enter a job title.",
    );
    await user.type(text, "Marketing Manager");
    expect(text.getAttribute("aria-invalid")).toBeNull();

    // The level sits in the rule's line: a button showing it, a menu of the five.
    const levels = screen.getByRole("button", { name: /^Match level of job title match 1 Similar/ });
    expect(levels.getAttribute("aria-haspopup")).toBe("menu");
    expect(levels.textContent).toBe("Similar");
    expect(document.getElementById(levels.getAttribute("aria-describedby")!)?.textContent).toBe(
      MATCH_LEVEL_TEXT.similar,
    );
    await user.click(levels);
    const items = within(screen.getByRole("menu")).getAllByRole("menuitemradio");
    expect(items.map((item) => item.getAttribute("aria-label"))).toEqual(
      MATCH_LEVELS.map((level) => `${level[0]!.toUpperCase()}${level.slice(1)}: ${MATCH_LEVEL_TEXT[level]}`),
    );
    expect(items.map((item) => item.getAttribute("aria-checked"))).toEqual([
      "false",
      "false",
      "true",
      "false",
      "false",
    ]);
    await user.click(items[4]!);
    expect(tree().children[0]).toMatchObject({ text: "Marketing Manager", match: "broad" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(levels);
    expect(levels.textContent).toBe("Broad");
    expect(document.getElementById(levels.getAttribute("aria-describedby")!)?.textContent).toBe(
      MATCH_LEVEL_TEXT.broad,
    );
    // From the keyboard: the menu opens on the chosen level; one up is the next narrower.
    await user.keyboard("{ArrowDown}");
    await waitFor(() => expect(document.activeElement?.getAttribute("aria-label")).toMatch(/^Broad/));
    await user.keyboard("{ArrowUp}{Enter}");
    expect(tree().children[0]).toMatchObject({ match: "related" });
    expect(document.activeElement).toBe(levels);

    await user.click(screen.getByRole("button", { name: "NOT: exclude what job title match 1 matches" }));
    expect(tree().children[0]).toMatchObject({ type: "semantic", negate: true });
  });

  it("keeps focus in the row when NOT, pressed from the list button, turns that button off", async () => {
    installFakeFetch(() => json({ count: 0 }));
    const user = userEvent.setup();
    const { tree } = renderEditor(
      group([
        { type: "semantic", id: "s", on: "title", text: "VP Marketing", match: "similar", negate: false },
      ]),
    );
    const list = screen.getByRole("button", { name: "See the titles it takes in" });
    list.focus();
    await user.keyboard("{Control>}i{/Control}");
    expect(tree().children[0]).toMatchObject({ negate: true });
    expect((list as HTMLButtonElement).disabled).toBe(true);
    // Not on the disabled button (it cannot hold focus), nor lost to the page: on the rule's text.
    expect(document.activeElement).toBe(
      screen.getByRole("textbox", { name: "Job title for job title match 1" }),
    );
    await user.keyboard("{Control>}i{/Control}");
    expect(tree().children[0]).toMatchObject({ negate: false });
  });

  it("add a company match from the group's buttons", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([]));
    await user.click(screen.getByRole("button", { name: "Add company match to the whole filter" }));
    expect(tree().children[0]).toMatchObject({ type: "semantic", on: "company" });
    expect(document.activeElement).toBe(
      screen.getByRole("textbox", { name: "Kind of company for company match 1" }),
    );
  });
});

/** What the row says of the company (in its line: "Like:" is for screen readers). */
const lookupText = () => document.querySelector(".fe-lookup")?.textContent;

describe("lookalike companies", () => {
  const lookalike = group([
    { type: "lookalike", id: "l", domain: "", rbidOrg: "", match: "similar", negate: false },
  ]);

  it("names the company once the domain is typed", async () => {
    const sent = installFakeFetch((request) => {
      const body = request.body as { domain?: string; rbidOrg?: string };
      if (body.domain === "northwind.example" || body.rbidOrg === "ORG-42")
        return json({
          source: { COMPANY_NAME_ORG: "Northwind Analytics", INDUSTRY_LINKEDIN_ORG: "Software Development" },
          companies: [],
          limit: 1,
        });
      return json(
        { detail: [{ loc: ["body", "domain"], msg: "unknown company", type: "value_error" }] },
        422,
      );
    });
    const user = userEvent.setup();
    const { tree } = renderEditor(lookalike);
    expect(screen.getByText("Name a company by its web domain, its name or its company ID.")).toBeTruthy();
    const input = screen.getByRole("textbox", { name: "Company domain for lookalike 1" });
    await user.type(input, "northwind.example");
    expect(tree().children[0]).toMatchObject({ domain: "northwind.example", rbidOrg: "" });
    await waitFor(() => expect(lookupText()).toBe("Like: Northwind Analytics — Software Development"));
    // Typing was debounced into one lookup (the level counts that follow a found company aside).
    const lookups = () => sent.filter((r) => r.path === "/api/v2/contact/company/lookalike");
    expect(lookups()).toEqual([
      {
        method: "POST",
        path: "/api/v2/contact/company/lookalike",
        body: {
          domain: "northwind.example",
          limit: 1,
          columns: ["COMPANY_NAME_ORG", "INDUSTRY_LINKEDIN_ORG"],
        },
      },
    ]);

    // Once left, the field shows the company by its name; pressing it brings the domain back.
    await user.tab();
    // (Named by what it shows; what it is, and that it can be changed, in its description.)
    const chip = await screen.findByRole("button", { name: "Northwind Analytics northwind.example" });
    expect(document.getElementById(chip.getAttribute("aria-describedby")!)?.textContent).toBe(
      "The company of lookalike 1, by its domain. Press to change it.",
    );
    expect(screen.queryByRole("textbox", { name: "Company domain for lookalike 1" })).toBeNull();
    await user.click(chip);
    const again = screen.getByRole("textbox", { name: "Company domain for lookalike 1" });
    expect(document.activeElement).toBe(again);
    expect((again as HTMLInputElement).value).toBe("northwind.example");
    expect((again as HTMLInputElement).selectionEnd).toBe("northwind.example".length);

    // Switching to company ID carries the text across; an unknown one says so.
    await user.selectOptions(
      screen.getByRole("combobox", { name: "Name the company of lookalike 1 by" }),
      "rbidOrg",
    );
    expect(tree().children[0]).toMatchObject({ domain: "", rbidOrg: "northwind.example" });
    const byId = screen.getByRole("textbox", { name: "Company ID for lookalike 1" });
    expect(await screen.findByText("No such company")).toBeTruthy();
    expect(byId.getAttribute("aria-invalid")).toBe("true");
    await user.clear(byId);
    await user.type(byId, "ORG-42");
    await waitFor(() => expect(lookupText()).toBe("Like: Northwind Analytics — Software Development"));
    expect(lookups().at(-1)?.body).toEqual({
      rbidOrg: "ORG-42",
      limit: 1,
      columns: ["COMPANY_NAME_ORG", "INDUSTRY_LINKEDIN_ORG"],
    });
  });

  it("an undo that takes the found company away leaves focus in its field, not on the page", async () => {
    installFakeFetch((request) => {
      const body = request.body as { domain?: string };
      if (body.domain === "northwind.example")
        return json({ source: { COMPANY_NAME_ORG: "Northwind Analytics" }, companies: [], limit: 1 });
      return json({ count: 0 });
    });
    const user = userEvent.setup();
    const { tree } = renderEditor(lookalike);
    await user.type(
      screen.getByRole("textbox", { name: "Company domain for lookalike 1" }),
      "northwind.example",
    );
    await user.tab();
    const chip = await screen.findByRole("button", { name: "Northwind Analytics northwind.example" });
    chip.focus();
    await user.keyboard("{Control>}z{/Control}");
    expect(tree().children[0]).toMatchObject({ domain: "" });
    await waitFor(() =>
      expect(document.activeElement).toBe(
        screen.getByRole("textbox", { name: "Company domain for lookalike 1" }),
      ),
    );
  });

  it("reads a web address typed for the domain as the domain, once the field is left", async () => {
    installFakeFetch(() =>
      json({ source: { COMPANY_NAME_ORG: "Northwind Analytics" }, companies: [], limit: 1 }),
    );
    const user = userEvent.setup();
    const { tree } = renderEditor(lookalike);
    await user.type(
      screen.getByRole("textbox", { name: "Company domain for lookalike 1" }),
      "https://www.Northwind.example/about?x=1",
    );
    expect(tree().children[0]).toMatchObject({ domain: "https://www.Northwind.example/about?x=1" });
    await user.tab();
    expect(tree().children[0]).toMatchObject({ domain: "northwind.example" });
  });

  it("says No such company when the service answers 422", async () => {
    installFakeFetch(() =>
      json({ detail: [{ loc: ["body"], msg: "unknown company", type: "value_error" }] }, 422),
    );
    const user = userEvent.setup();
    renderEditor(lookalike);
    await user.type(
      screen.getByRole("textbox", { name: "Company domain for lookalike 1" }),
      "nobody.example",
    );
    await waitFor(() => expect(screen.getByText("No such company")).toBeTruthy());
  });

  it("shows the reason when the lookup itself fails", async () => {
    installFakeFetch(() => json({ detail: "The data service had a problem." }, 502));
    const user = userEvent.setup();
    renderEditor(lookalike);
    await user.type(screen.getByRole("textbox", { name: "Company domain for lookalike 1" }), "x.example");
    expect(await screen.findByText(/^Could not check this company/)).toBeTruthy();
  });
});
