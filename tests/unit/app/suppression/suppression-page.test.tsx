// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createQueryClient } from "../../../../src/app/query-client";
import type { SuppressionList } from "../../../../src/contract/spending";
import type { Role } from "../../../../src/contract/team";
import { fakeApi, json, type Seen } from "../spending/fake-api";

let role: Role = "buyer";
vi.mock("../../../../src/app/api/session", () => ({
  useSession: () => ({ data: { user: "bo", role } }),
}));
const { SuppressionPage } = await import("../../../../src/app/features/suppression/suppression-page");

const list = (over: Partial<SuppressionList> = {}): SuppressionList => ({
  id: "l1",
  name: "Competitors",
  createdBy: "ada",
  createdAt: "2026-11-25T10:00:00Z",
  counts: { domain: 120, companyId: 0, personId: 3, linkedin: 0, email: 0 },
  entries: 123,
  ...over,
});

let lists: SuppressionList[] = [];
let seen: Seen[] = [];
beforeEach(() => {
  role = "buyer";
  lists = [list()];
  seen = fakeApi(({ method, path, body, search }) => {
    if (method === "GET" && path === "/api/suppression") return json({ lists });
    if (method === "POST" && path === "/api/suppression") {
      const { name } = body as { name: string; text: string };
      const made = list({
        id: "l2",
        name,
        counts: { domain: 2, companyId: 0, personId: 0, linkedin: 1, email: 0 },
        entries: 3,
      });
      lists = [...lists, made];
      return json(
        {
          list: made,
          added: 3,
          duplicates: 1,
          rejected: [
            { line: 5, value: "not a thing", reason: "not a domain, an id, a LinkedIn profile or an email" },
          ],
          rejectedTotal: 1,
        },
        201,
      );
    }
    if (method === "GET" && path === "/api/suppression/l1/entries")
      return search.get("after")
        ? json({ entries: [{ kind: "personId", value: "P-3" }], next: null })
        : json({ entries: [{ kind: "domain", value: "acme.com" }], next: "x" });
    if (method === "DELETE" && path === "/api/suppression/l1") {
      lists = [];
      return new Response(null, { status: 204 });
    }
    return json({ detail: "Not found" }, 404);
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <SuppressionPage />
    </QueryClientProvider>,
  );
}

describe("do-not-contact lists", () => {
  it("shows each list's counts per kind in words, and browses its entries a page at a time", async () => {
    const user = userEvent.setup();
    renderPage();
    const item = await screen.findByTestId("suppression-list");
    expect(
      within(item)
        .getAllByRole("term")
        .map((t) => t.textContent),
    ).toEqual(["Company domains", "Contact ids"]);
    expect(item.textContent).toMatch(/123 entries · made by ada/);
    expect(
      within(item)
        .getAllByRole("definition")
        .map((d) => d.textContent),
    ).toEqual(["120", "3"]);
    await user.click(within(item).getByRole("button", { name: "Browse entries of Competitors" }));
    expect(await within(item).findByText("acme.com")).toBeTruthy();
    await user.click(within(item).getByRole("button", { name: "Show more" }));
    expect(await within(item).findByText("P-3")).toBeTruthy();
    expect(
      within(item)
        .getAllByRole("row")
        .slice(1)
        .map((r) => r.textContent),
    ).toEqual(["Company domainsacme.com", "Contact idsP-3"]);
  });

  it("creates a list from pasted lines and says what was added and which lines were not used", async () => {
    const user = userEvent.setup();
    renderPage();
    const form = await screen.findByRole("form", { name: "New list" });
    await user.click(within(form).getByRole("button", { name: "Create the list" }));
    // The form's check is asynchronous (its resolver): what it says is waited for.
    await waitFor(() =>
      expect(
        within(form)
          .getAllByRole("alert")
          .map((a) => a.textContent),
      ).toEqual(["Give the list a name."]),
    );
    await user.type(within(form).getByLabelText("Name of the list"), "Do not call");
    await user.click(within(form).getByRole("button", { name: "Create the list" }));
    await waitFor(() =>
      expect(within(form).getByRole("alert").textContent).toBe(
        "Paste at least one entry, or choose a CSV file.",
      ),
    );
    expect(seen.some((s) => s.method === "POST")).toBe(false);
    await user.type(
      within(form).getByLabelText("Entries, one a line"),
      "acme.com{enter}b.com{enter}not a thing",
    );
    await user.click(within(form).getByRole("button", { name: "Create the list" }));
    const result = await within(form).findByTestId("import-result");
    expect(result.textContent).toBe(
      "Added 3 entries to Do not call. 1 was on the list already. 1 line was not used: it is none of the kinds a list can hold." +
        "The line not used" +
        "Line 5: “not a thing” — not a domain, an id, a LinkedIn profile or an email.",
    );
    expect(seen.find((s) => s.method === "POST")?.body).toEqual({
      name: "Do not call",
      text: "acme.com\nb.com\nnot a thing",
    });
    expect(await screen.findByText("Do not call was created.")).toBeTruthy();
    expect(await screen.findAllByTestId("suppression-list")).toHaveLength(2);
  });

  it("sends an uploaded CSV file's text, read in the browser", async () => {
    const user = userEvent.setup();
    renderPage();
    const form = await screen.findByRole("form", { name: "New list" });
    await user.type(within(form).getByLabelText("Name of the list"), "From a file");
    const csv = "domain\r\nacme.com\r\nb.com\r\n";
    await user.upload(
      within(form).getByLabelText("Or upload a CSV file"),
      new File([csv], "list.csv", { type: "text/csv" }),
    );
    expect((await within(form).findByTestId("chosen-file")).textContent).toMatch(
      /^Read list\.csv: 25 bytes, 3 lines;/,
    );
    expect((within(form).getByLabelText("Entries, one a line") as HTMLTextAreaElement).disabled).toBe(true);
    await user.click(within(form).getByRole("button", { name: "Create the list" }));
    await within(form).findByTestId("import-result");
    expect(seen.find((s) => s.method === "POST")?.body).toEqual({ name: "From a file", text: csv });
  });

  it("deletes a list only after a confirmation that says what it changes", async () => {
    const user = userEvent.setup();
    renderPage();
    const item = await screen.findByTestId("suppression-list");
    await user.click(within(item).getByRole("button", { name: "Delete… Competitors" }));
    const confirm = within(item).getByRole("group", { name: "Delete Competitors" });
    expect(confirm.textContent).toMatch(/no longer left out, and exports may include them/);
    expect(seen.some((s) => s.method === "DELETE")).toBe(false);
    await user.click(within(confirm).getByRole("button", { name: "Delete Competitors" }));
    expect(await screen.findByText("Competitors was deleted.")).toBeTruthy();
    expect(await screen.findByText("The team has no do-not-contact list yet.")).toBeTruthy();
  });

  it("lets an analyst read the lists and says why they cannot change them", async () => {
    role = "analyst";
    renderPage();
    const item = await screen.findByTestId("suppression-list");
    expect(screen.getByTestId("role-notice").textContent).toMatch(
      /^Your role is analyst: the lists can be read here, not changed\./,
    );
    expect(within(item).queryByRole("button", { name: /Add entries|Delete/ })).toBeNull();
    expect(within(item).getByRole("button", { name: "Browse entries of Competitors" })).toBeTruthy();
    expect(screen.queryByRole("form", { name: "New list" })).toBeNull();
  });
});
