// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PeopleCard } from "../../../../src/app/features/team/people-card";
import { createQueryClient } from "../../../../src/app/query-client";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const person = (name: string) => ({
  name,
  role: "analyst",
  source: "team",
  createdAt: "2026-11-25T10:00:00Z",
  createdBy: "ana",
});

beforeEach(() => {
  const BaseRequest = globalThis.Request;
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async (input: Request) => {
    const path = new URL(input.url).pathname;
    if (input.method === "GET" && path.endsWith("/team/people")) return json({ people: [person("ana")] });
    if (input.method === "GET" && path.endsWith("/team/audit")) return json({ entries: [] });
    if (input.method === "POST" && path.endsWith("/team/people")) {
      const body = JSON.parse(await input.text()) as { name: string };
      if (body.name === "Bo") return json({ detail: "That name is taken.", code: "NAME_TAKEN" }, 409);
      return json(person(body.name), 201);
    }
    return json({ detail: "Not found" }, 404);
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderCard() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <PeopleCard me="ana" />
    </QueryClientProvider>,
  );
}

async function add(user: ReturnType<typeof userEvent.setup>, name: string, password: string) {
  const nameBox = screen.getByLabelText("Name");
  await user.clear(nameBox);
  if (name) await user.type(nameBox, name);
  const passwordBox = screen.getByLabelText("First password");
  await user.clear(passwordBox);
  if (password) await user.type(passwordBox, password);
  await user.click(screen.getByRole("button", { name: "Add to the team" }));
}

describe("Add a person: only the latest outcome shows", () => {
  it("clears the server's refusal when the form changes, and does not show it under a new validation error", async () => {
    const user = userEvent.setup();
    renderCard();
    await add(user, "Bo", "long-enough-1");
    expect(await screen.findByText(/someone called Bo is on the team already/)).toBeTruthy();
    await user.clear(screen.getByLabelText("First password"));
    expect(screen.queryByText(/someone called Bo is on the team already/)).toBeNull();
    await add(user, "Cy", "short");
    expect(screen.getByLabelText("First password").getAttribute("aria-invalid")).toBe("true");
    expect(screen.queryByText(/someone called Bo is on the team already/)).toBeNull();
  });

  it("clears the success message when the form changes, and a refusal never shows beside it", async () => {
    const user = userEvent.setup();
    renderCard();
    await add(user, "Cy", "long-enough-1");
    expect(await screen.findByText("Cy was added to the team.")).toBeTruthy();
    await add(user, "Bo", "long-enough-1");
    expect(await screen.findByText(/someone called Bo is on the team already/)).toBeTruthy();
    expect(screen.queryByText("Cy was added to the team.")).toBeNull();
  });
});
