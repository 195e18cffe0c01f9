// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MATCH_LEVEL_TEXT } from "../../../../src/contract/inferred";
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

    const levels = screen.getByRole("radiogroup", { name: "Match level of job title match 1" });
    expect(
      within(levels)
        .getAllByRole("radio")
        .map((r) => r.textContent),
    ).toEqual(["Exact", "Same", "Similar", "Related", "Broad"]);
    expect(within(levels).getByRole("radio", { name: "Similar" }).getAttribute("aria-checked")).toBe("true");
    expect(document.getElementById(levels.getAttribute("aria-describedby")!)?.textContent).toBe(
      MATCH_LEVEL_TEXT.similar,
    );
    await user.click(within(levels).getByRole("radio", { name: "Broad" }));
    expect(tree().children[0]).toMatchObject({ text: "Marketing Manager", match: "broad" });
    expect(screen.getByText(MATCH_LEVEL_TEXT.broad)).toBeTruthy();
    await user.keyboard("{ArrowLeft}");
    expect(tree().children[0]).toMatchObject({ match: "related" });

    await user.click(screen.getByRole("button", { name: "NOT: exclude what job title match 1 matches" }));
    expect(tree().children[0]).toMatchObject({ type: "semantic", negate: true });
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
    expect(await screen.findByText("Like: Northwind Analytics — Software Development")).toBeTruthy();
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

    // Switching to company ID carries the text across; an unknown one says so.
    await user.click(screen.getByRole("radio", { name: "Company ID" }));
    expect(tree().children[0]).toMatchObject({ domain: "", rbidOrg: "northwind.example" });
    const byId = screen.getByRole("textbox", { name: "Company ID for lookalike 1" });
    expect(await screen.findByText("No such company")).toBeTruthy();
    expect(byId.getAttribute("aria-invalid")).toBe("true");
    await user.clear(byId);
    await user.type(byId, "ORG-42");
    expect(await screen.findByText("Like: Northwind Analytics — Software Development")).toBeTruthy();
    expect(lookups().at(-1)?.body).toEqual({
      rbidOrg: "ORG-42",
      limit: 1,
      columns: ["COMPANY_NAME_ORG", "INDUSTRY_LINKEDIN_ORG"],
    });
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
