// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call } from "../../../../src/app/api/operations";
import { LookalikeFinder } from "../../../../src/app/features/companies/lookalike-finder";

vi.mock("../../../../src/app/api/operations", () => ({ call: vi.fn() }));
const callMock = vi.mocked(call);

/** Two companies share a name, as they may in the service's data (the sandbox's names are unique). */
const DOMAINS_OF: Record<string, { value: string; count: number }[]> = {
  acme: [
    { value: "acme.com", count: 40 },
    { value: "acme.de", count: 12 },
  ],
  solo: [{ value: "solo.io", count: 3 }],
};

type Body = { groupField?: string; filter?: { children: { value: string }[] }; domain?: string };

beforeEach(() => {
  callMock.mockReset();
  callMock.mockImplementation((async (id: string, input: { body: Body }) => {
    const { body } = input;
    if (id === "insights") {
      const name = body.filter!.children[0]!.value.toLowerCase();
      const buckets = body.groupField === "DOMAIN_ORG" ? (DOMAINS_OF[name] ?? []) : [];
      return { section: "breakdown", groupField: body.groupField, total: 0, buckets, otherCount: 0 };
    }
    if (id === "lookalike")
      return {
        source: { COMPANY_NAME_ORG: `Source ${body.domain}`, DOMAIN_ORG: body.domain },
        companies: [
          { COMPANY_NAME_ORG: `Like ${body.domain}`, DOMAIN_ORG: `like-${body.domain}`, distance: 0.1 },
        ],
        limit: 25,
      };
    throw new Error(`unexpected call ${id}`);
  }) as never);
});
afterEach(cleanup);

function renderFinder() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <LookalikeFinder onAdd={() => {}} />
    </QueryClientProvider>,
  );
}

async function searchByName(name: string) {
  fireEvent.click(screen.getByRole("radio", { name: "Company name" }));
  fireEvent.change(screen.getByRole("textbox", { name: "Company name" }), { target: { value: name } });
  fireEvent.click(screen.getByRole("button", { name: "Find lookalikes" }));
}

const lookalikesAsked = () =>
  callMock.mock.calls
    .filter(([id]) => id === "lookalike")
    .map(([, input]) => (input as { body: Body }).body.domain);

describe("lookalikes of a company named by its name", () => {
  it("several companies of that name: asks which, then finds the lookalikes of the one chosen", async () => {
    renderFinder();
    await searchByName("Acme");
    const list = await screen.findByRole("list", { name: /2 companies are named “Acme”/ });
    const choices = within(list)
      .getAllByRole("button")
      .map((b) => b.textContent);
    expect(choices).toEqual(["acme.com (40 people)", "acme.de (12 people)"]);
    // Nothing is looked up before the person says which.
    expect(lookalikesAsked()).toEqual([]);
    fireEvent.click(within(list).getByRole("button", { name: "acme.de (12 people)" }));
    await waitFor(() => expect(lookalikesAsked()).toEqual(["acme.de"]));
    expect(await screen.findByText(/“Acme” is acme\.de \(12 people\)\./)).toBeTruthy();
    // Another of the two, one click away.
    fireEvent.click(screen.getByRole("button", { name: "Choose another of the 2" }));
    fireEvent.click(await screen.findByRole("button", { name: "acme.com (40 people)" }));
    await waitFor(() => expect(lookalikesAsked()).toEqual(["acme.de", "acme.com"]));
  });

  it("one company of that name: its lookalikes at once", async () => {
    renderFinder();
    await searchByName("solo");
    await waitFor(() => expect(lookalikesAsked()).toEqual(["solo.io"]));
    expect(await screen.findByText("“solo” is solo.io (3 people).")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Choose another/ })).toBeNull();
  });

  it("no company of that name: says so, asks for no lookalike", async () => {
    renderFinder();
    await searchByName("Nobody");
    expect((await screen.findByRole("alert")).textContent).toBe(
      "No company of the contact data is named “Nobody”. Check the spelling, or search by its website domain.",
    );
    expect(lookalikesAsked()).toEqual([]);
  });
});
