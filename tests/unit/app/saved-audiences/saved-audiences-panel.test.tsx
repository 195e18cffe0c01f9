// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useLayoutEffect, useState } from "react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { OpenAudienceBar } from "../../../../src/app/features/saved-audiences/open-audience-bar";
import { SavedAudiencesPanel } from "../../../../src/app/features/saved-audiences/saved-audiences-panel";
import { exportEnvelope } from "../../../../src/app/features/saved-audiences/tree-json";
import {
  BROWSER_AUDIENCES_BACKUP_KEY,
  BROWSER_AUDIENCES_KEY,
  BROWSER_AUDIENCES_MOVED_KEY,
} from "../../../../src/app/lib/browser-audiences";
import { openAudienceStore, useOpenAudience, withWorkingTree } from "../../../../src/app/lib/open-audience";
import { createQueryClient } from "../../../../src/app/query-client";
import type { GroupNode } from "../../../../src/contract/filter";
import { fakeAudienceServer } from "./fake-audience-server";

// What Radix's menu needs and jsdom lacks.
beforeAll(() => {
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
const FRANCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
};

let server: ReturnType<typeof fakeAudienceServer>;

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  openAudienceStore().set(null);
  server = fakeAudienceServer({ person: "ana" }).install();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** The bar and the panel beside a stand-in builder that holds the current tree, as the Builder page composes them. */
function Harness({ initial }: { initial: GroupNode }) {
  const [tree, setTree] = useState(initial);
  // As the Builder page does: the open audience follows this tab's working tree.
  const openAudience = useOpenAudience();
  useLayoutEffect(() => {
    if (!openAudience) return;
    const next = withWorkingTree(openAudience, tree);
    if (next !== openAudience) openAudienceStore().set(next);
  }, [openAudience, tree]);
  return (
    <>
      <pre data-testid="current">{JSON.stringify(tree)}</pre>
      <button type="button" onClick={() => setTree((t) => ({ ...t, negate: !t.negate }))}>
        Edit (stand-in for the builder)
      </button>
      <OpenAudienceBar currentTree={tree} currentCount={42} onOpen={setTree} />
      <SavedAudiencesPanel currentTree={tree} currentCount={42} onOpen={setTree} />
    </>
  );
}

function setup(initial: GroupNode = GERMANY) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Harness initial={initial} />
    </QueryClientProvider>,
  );
  return user;
}

const current = () => JSON.parse(screen.getByTestId("current").textContent ?? "null") as GroupNode;
const bar = () => screen.getByRole("region", { name: "Open audience" });
const facts = () => bar().querySelector(".open-audience-facts")?.textContent ?? "";
const rowOf = async (name: string) =>
  (await screen.findByRole("button", { name: `Open ${name}` })).closest("li")!;
const writes = () => server.sent.filter((r) => r.method !== "GET");

async function menuAction(user: ReturnType<typeof userEvent.setup>, name: string, item: string | RegExp) {
  await user.click(screen.getByRole("button", { name: `Actions for “${name}”` }));
  const menu = await screen.findByRole("menu");
  await user.click(within(menu).getByRole("menuitem", { name: item }));
}

describe("saved audiences on the server", () => {
  it("lists what the person may see: owner, private or shared, last count, version, who updated it and when", async () => {
    server.seed({ name: "Mine", filter: GERMANY, lastCount: 1234 });
    server.seed({ name: "Bo's shared", filter: FRANCE, owner: "bo", shared: true });
    server.seed({ name: "Bo's private", filter: FRANCE, owner: "bo" });
    server.saveAs("bo", [...server.rows.values()][1]!.audience.id, { lastCount: 7 });
    setup();
    const mine = await rowOf("Mine");
    expect(within(mine).getByText("ana")).toBeTruthy();
    expect(within(mine).getByText("Private")).toBeTruthy();
    expect(within(mine).getByText("1,234 people")).toBeTruthy();
    expect(mine.querySelector(".saved-item-version")?.textContent).toBe("1");
    const shared = await rowOf("Bo's shared");
    expect(within(shared).getByText("Shared")).toBeTruthy();
    expect(shared.querySelector(".saved-item-version")?.textContent).toBe("2");
    expect(shared.querySelector(".saved-item-updated dd")?.textContent).toMatch(/^bo, /);
    expect(screen.queryByRole("button", { name: "Open Bo's private" })).toBeNull();
    // Someone else's shared audience: no Delete, no Share for a person who is neither owner nor admin.
    await user().click(screen.getByRole("button", { name: "Actions for “Bo's shared”" }));
    const menu = await screen.findByRole("menu");
    expect(within(menu).queryByRole("menuitem", { name: "Delete" })).toBeNull();
    expect(within(menu).queryByRole("menuitem", { name: "Make private" })).toBeNull();
    expect(within(menu).getByRole("menuitem", { name: "Rename…" })).toBeTruthy();
  });

  it("says recorded names as people read them: the local person of local mode is the local admin, never “local”", async () => {
    const saved = server.seed({ name: "Local one", filter: GERMANY, owner: "local", shared: true });
    const user = setup();
    const row = await rowOf("Local one");
    expect(row.querySelector(".saved-item-owner")?.textContent).toBe("the local admin");
    expect(row.querySelector(".saved-item-updated dd")?.textContent).toMatch(/^the local admin, /);
    await user.click(screen.getByRole("button", { name: "Open Local one" }));
    await waitFor(() => expect(within(bar()).getByText("Local one")).toBeTruthy());
    expect(facts()).toMatch(/ · owner the local admin · updated by the local admin, /);
    await menuAction(user, "Local one", "Version history");
    const history = await screen.findByRole("region", { name: "Versions of “Local one”" });
    await waitFor(() => expect(within(history).getAllByRole("listitem")).toHaveLength(1));
    expect(history.querySelector(".saved-history-who")?.textContent).toMatch(/^the local admin, /);
    // A conflict with a save by the local person starts its sentence in words too.
    server.saveAs("local", saved.id, { lastCount: 3 });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    const choice = await screen.findByRole("alertdialog");
    expect(choice.textContent).toMatch(/The local admin saved version 2 of “Local one”/);
    expect(document.body.textContent).not.toMatch(/\blocal\b(?! admin)/);
  });

  it("saves as new (shared), then Save updates it in place with its version; same names stay plain", async () => {
    const user = setup();
    expect(within(bar()).getByText("Not saved yet.")).toBeTruthy();
    await user.click(await screen.findByRole("button", { name: "Save as new…" }));
    const field = screen.getByLabelText("Name this audience") as HTMLInputElement;
    await user.clear(field);
    await user.type(field, "Germany leads");
    await user.click(screen.getByLabelText(/Share with the team/));
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(within(bar()).getByText("Germany leads")).toBeTruthy());
    expect(writes()[0]).toMatchObject({
      method: "POST",
      path: "/api/audiences",
      body: { name: "Germany leads", filter: GERMANY, shared: true, lastCount: 42 },
    });
    expect(within(bar()).getByText("Saved")).toBeTruthy();
    const save = () => within(bar()).getByRole("button", { name: "Save" }) as HTMLButtonElement;
    expect(save().disabled).toBe(true);

    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    expect(within(bar()).getByText("Unsaved changes")).toBeTruthy();
    expect(save().disabled).toBe(false);
    await user.click(save());
    await waitFor(() => expect(within(bar()).getByText("Saved")).toBeTruthy());
    const put = writes()[1]!;
    expect(put).toMatchObject({ method: "PUT", body: { version: 1, lastCount: 42 } });
    expect((put.body as { filter: GroupNode }).filter.negate).toBe(true);
    expect(facts()).toMatch(/^Version 2 · /);
    expect(server.rows.size).toBe(1);

    // A second "Save as new" with the same name is another audience, plainly named: no "(2)".
    await user.click(screen.getByRole("button", { name: "Save as new…" }));
    const again = screen.getByLabelText("Name this audience") as HTMLInputElement;
    await user.clear(again);
    await user.type(again, "Germany leads{Enter}");
    await waitFor(() => expect(server.rows.size).toBe(2));
    expect([...server.rows.values()].map((r) => r.audience.name)).toEqual(["Germany leads", "Germany leads"]);
  });

  it("never overwrites a newer version silently: the choice says who saved it; Overwrite with mine names the latest version", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY, shared: true });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    server.saveAs("bo", saved.id, { filter: FRANCE, lastCount: 5 });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    const choice = await screen.findByRole("alertdialog", { name: "Someone saved a newer version" });
    expect(choice.textContent).toMatch(
      /bo saved version 2 of “Directors” .* \(5 people\), after the version 1 you opened\./,
    );
    // Nothing was written by the refused save.
    expect(server.rows.get(saved.id)!.audience.filter).toEqual(FRANCE);
    await user.click(within(choice).getByRole("button", { name: "Overwrite with mine" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(writes().at(-1)).toMatchObject({ method: "PUT", body: { version: 2 } });
    expect(server.rows.get(saved.id)!.audience).toMatchObject({ version: 3, updatedBy: "ana" });
    expect(server.rows.get(saved.id)!.audience.filter.negate).toBe(true);
  });

  it("on a conflict, Save mine as a new audience keeps both", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY, shared: true });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    server.saveAs("bo", saved.id, { filter: FRANCE });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    const choice = await screen.findByRole("alertdialog");
    await user.click(within(choice).getByRole("button", { name: "Save mine as a new audience" }));
    await waitFor(() => expect(server.rows.size).toBe(2));
    const copy = [...server.rows.values()][1]!.audience;
    expect(copy).toMatchObject({ name: "Directors", owner: "ana", shared: false });
    expect(copy.filter.negate).toBe(true);
    expect(server.rows.get(saved.id)!.audience.filter).toEqual(FRANCE);
    await waitFor(() => expect(facts()).toMatch(/^Version 1 · private · owner ana · updated by ana, /));
    expect(within(bar()).getByText("Saved")).toBeTruthy();
  });

  it("on a conflict, Open theirs (discard my changes) puts their version in the builder", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY, shared: true });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    server.saveAs("bo", saved.id, { filter: FRANCE });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    const choice = await screen.findByRole("alertdialog");
    const before = writes().length;
    await user.click(within(choice).getByRole("button", { name: "Open theirs (discard my changes)" }));
    expect(current()).toEqual(FRANCE);
    expect(within(bar()).getByText("Saved")).toBeTruthy();
    expect(facts()).toMatch(/^Version 2 · /);
    expect(writes().length).toBe(before);
  });

  it("a conflict belongs to its audience: opening another one drops the choice", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY, shared: true });
    server.seed({ name: "Other", filter: FRANCE });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    server.saveAs("bo", saved.id, { lastCount: 1 });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    await screen.findByRole("alertdialog");
    await user.click(screen.getByRole("button", { name: "Open Other" }));
    await waitFor(() => expect(within(bar()).getByText("Other")).toBeTruthy());
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(current()).toEqual(FRANCE);
  });

  it("a save's answer lands only on the audience it was for: B opened while A's save is under way stays B, and Save then writes B", async () => {
    const a = server.seed({ name: "Directors", filter: GERMANY, shared: true });
    const b = server.seed({ name: "Other", filter: FRANCE });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    const release = server.holdWrites();
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(writes().at(-1)).toMatchObject({ method: "PUT", path: `/api/audiences/${a.id}` }),
    );
    // The PUT is still under way: the person opens another audience.
    await user.click(screen.getByRole("button", { name: "Open Other" }));
    await waitFor(() => expect(within(bar()).getByText("Other")).toBeTruthy());
    expect(current()).toEqual(FRANCE);
    release();
    await waitFor(() => expect(server.rows.get(a.id)!.audience.version).toBe(2));
    // A's answer did not reopen A over B's tree.
    await waitFor(() => expect(within(bar()).getByRole("button", { name: "Save" })).toBeTruthy());
    expect(within(bar()).getByText("Other")).toBeTruthy();
    expect(within(bar()).queryByText("Directors")).toBeNull();
    expect(within(bar()).getByText("Saved")).toBeTruthy();
    expect(openAudienceStore().get()).toMatchObject({ id: b.id, version: 1 });
    // Save now writes B's tree into B, never into A.
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(server.rows.get(b.id)!.audience.version).toBe(2));
    expect(writes().at(-1)).toMatchObject({
      method: "PUT",
      path: `/api/audiences/${b.id}`,
      body: { version: 1 },
    });
    expect(server.rows.get(b.id)!.audience.filter).toEqual({ ...FRANCE, negate: true });
    expect(server.rows.get(a.id)!.audience).toMatchObject({
      version: 2,
      filter: { ...GERMANY, negate: true },
    });
  });

  it("a Save as new answered after another audience was opened does not take the Builder's tree", async () => {
    server.seed({ name: "Other", filter: FRANCE });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Save as new…" }));
    const field = screen.getByLabelText("Name this audience") as HTMLInputElement;
    await user.clear(field);
    await user.type(field, "Germany leads");
    const release = server.holdWrites();
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(writes().at(-1)).toMatchObject({ method: "POST" }));
    await user.click(screen.getByRole("button", { name: "Open Other" }));
    await waitFor(() => expect(within(bar()).getByText("Other")).toBeTruthy());
    release();
    await waitFor(() => expect(server.rows.size).toBe(2));
    await screen.findByText(/open it from the list to keep working on it/);
    expect(within(bar()).getByText("Other")).toBeTruthy();
    expect(current()).toEqual(FRANCE);
  });

  it("renaming or sharing the open audience moves the open record along (a later Save does not meet its own change)", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    await menuAction(user, "Directors", "Rename…");
    const field = await screen.findByLabelText("Rename “Directors”");
    await user.clear(field);
    await user.type(field, "DE directors{Enter}");
    await waitFor(() => expect(within(bar()).getByText("DE directors")).toBeTruthy());
    expect(writes().at(-1)).toMatchObject({ method: "PUT", body: { version: 1, name: "DE directors" } });
    await menuAction(user, "DE directors", "Share with the team");
    await waitFor(() => expect(facts()).toMatch(/^Version 3 · shared with the team/));
    expect(writes().at(-1)).toMatchObject({ method: "PUT", body: { version: 2, shared: true } });
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(server.rows.get(saved.id)!.audience.version).toBe(4));
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });

  it("deletes with undo (DELETE, then undelete), lists versions and restores one as a new version into the builder", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY, lastCount: 10 });
    server.saveAs("ana", saved.id, { filter: FRANCE, lastCount: 20 });
    const user = setup(FRANCE);
    await rowOf("Directors");
    await menuAction(user, "Directors", "Version history");
    const history = await screen.findByRole("region", { name: "Versions of “Directors”" });
    await waitFor(() => expect(within(history).getAllByRole("listitem")).toHaveLength(2));
    expect(within(history).getAllByRole("listitem")[1]!.textContent).toMatch(/Version 1.*ana, .*10 people/);
    await user.click(within(history).getByRole("button", { name: "Restore version 1 of “Directors”" }));
    await waitFor(() => expect(current()).toEqual(GERMANY));
    expect(writes().at(-1)).toMatchObject({ method: "POST", body: { version: 2, restore: 1 } });
    expect(server.rows.get(saved.id)!.audience.version).toBe(3);
    expect(within(bar()).getByText("Directors")).toBeTruthy();
    expect(within(bar()).getByText("Saved")).toBeTruthy();

    await menuAction(user, "Directors", "Delete");
    const undo = await screen.findByRole("button", { name: "Undo delete of “Directors”" });
    // The delete is soft: Dismiss says it hides the message, not that it deletes anything for good.
    const dismiss = screen.getByRole("button", { name: /^Dismiss this message/ });
    expect(dismiss.getAttribute("aria-label")).toBe(
      "Dismiss this message: “Directors” stays deleted, kept on the server with its versions",
    );
    expect(document.body.innerHTML).not.toMatch(/for good/);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Open Directors" })).toBeNull());
    await user.click(undo);
    await rowOf("Directors");
    expect(
      writes()
        .slice(-2)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([`DELETE /api/audiences/${saved.id}`, `POST /api/audiences/${saved.id}/undelete`]);
  });

  it("deleting the open audience closes it (the tree stays, not saved yet); Undo of the delete reopens it", async () => {
    const saved = server.seed({ name: "Directors", filter: GERMANY });
    const user = setup(FRANCE);
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    expect(within(bar()).getByText("Unsaved changes")).toBeTruthy();
    const edited = current();

    await menuAction(user, "Directors", "Delete");
    const undo = await screen.findByRole("button", { name: "Undo delete of “Directors”" });
    await waitFor(() => expect(within(bar()).getByText("Not saved yet.")).toBeTruthy());
    expect(openAudienceStore().get()).toBeNull();
    expect(within(bar()).queryByText("Unsaved changes")).toBeNull();
    expect(within(bar()).queryByRole("button", { name: "Save" })).toBeNull();
    expect(current()).toEqual(edited);

    await user.click(undo);
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    expect(openAudienceStore().get()).toMatchObject({ id: saved.id, version: 1 });
    expect(within(bar()).getByText("Unsaved changes")).toBeTruthy();
    await user.click(within(bar()).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(server.rows.get(saved.id)!.audience.version).toBe(2));
  });

  it("import replaces the tree and closes the open audience (a later Save cannot write it there); Back undoes both", async () => {
    server.seed({ name: "Directors", filter: GERMANY });
    const user = setup();
    await user.click(await screen.findByRole("button", { name: "Open Directors" }));
    await waitFor(() => expect(within(bar()).getByText("Directors")).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "Import…" }));
    await user.click(screen.getByLabelText("Or paste its JSON"));
    await user.paste(JSON.stringify(exportEnvelope(FRANCE, "From a file")));
    await user.click(screen.getByRole("button", { name: "Import pasted JSON" }));
    expect(current()).toEqual(FRANCE);
    expect(within(bar()).getByText("Not saved yet.")).toBeTruthy();
    expect(screen.getByText(/Opened the imported audience “From a file”/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Back to the previous audience" }));
    expect(current()).toEqual(GERMANY);
    expect(within(bar()).getByText("Directors")).toBeTruthy();
    expect(writes()).toEqual([]);
  });

  it("moves audiences saved in this browser to the server once, private, with their local ids; keeps a backup", async () => {
    const old = [
      { id: "local-1", name: "From before", tree: GERMANY, lastCount: 3, createdAt: "x", updatedAt: "x" },
      {
        id: "local-2",
        name: "Broken",
        tree: { type: "nope" },
        lastCount: null,
        createdAt: "x",
        updatedAt: "x",
      },
    ];
    localStorage.setItem(BROWSER_AUDIENCES_KEY, JSON.stringify(old));
    setup();
    await rowOf("From before");
    await waitFor(() =>
      expect(screen.getByTestId("saved-moved").textContent).toBe(
        "Moved 1 audience saved in this browser to your team's list (private).",
      ),
    );
    // What stayed behind (the unreadable entry) is said once, where it stays in view.
    expect(screen.getByTestId("saved-left-behind").querySelector("p")?.textContent).toBe(
      "One audience saved in this browser cannot be read by this version. It is kept in this browser only: download it as JSON.",
    );
    expect(writes()).toEqual([
      {
        method: "POST",
        path: "/api/audiences",
        body: { name: "From before", filter: GERMANY, shared: false, lastCount: 3, clientId: "local-1" },
      },
    ]);
    expect(JSON.parse(localStorage.getItem(BROWSER_AUDIENCES_BACKUP_KEY)!)).toEqual(old);
    expect(JSON.parse(localStorage.getItem(BROWSER_AUDIENCES_KEY)!)).toEqual([old[1]]);
  });

  it("shows what the server refused during the move on every later load, with its reason; it can be opened or downloaded", async () => {
    const kept = [
      { id: "local-1", name: "Too deep", tree: FRANCE, lastCount: 9, createdAt: "x", updatedAt: "x" },
      { id: "local-2", name: "Broken", tree: { type: "nope" }, lastCount: null },
    ];
    localStorage.setItem(BROWSER_AUDIENCES_KEY, JSON.stringify(kept));
    localStorage.setItem(
      BROWSER_AUDIENCES_MOVED_KEY,
      JSON.stringify({
        at: "2026-11-20T10:00:00.000Z",
        moved: 3,
        to: "ana",
        refused: [{ id: "local-1", reason: "The server refused it: the filter is nested too deeply." }],
      }),
    );
    const user = setup(GERMANY);
    const left = await screen.findByTestId("saved-left-behind");
    expect(left.querySelector("p")?.textContent).toBe(
      "1 audience from this browser could not be moved: The server refused it: the filter is nested too deeply. One more saved in this browser cannot be read by this version. They are kept in this browser only: download them as JSON, or open one in the Builder and save it.",
    );
    expect(within(left).getByText("“Too deep”")).toBeTruthy();
    // The move does not run again (it is marked), and nothing is written.
    expect(writes()).toEqual([]);

    // Download: the whole stored value, as JSON.
    const blobs: Blob[] = [];
    vi.spyOn(URL, "createObjectURL").mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return "blob:test/1";
    });
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    await user.click(within(left).getByRole("button", { name: "Download as JSON" }));
    expect(clicked[0]?.download).toBe("audiences-from-this-browser.json");
    expect(JSON.parse(await blobs[0]!.text())).toEqual(kept);
    expect(within(left).getByRole("status").textContent).toBe("Downloaded audiences-from-this-browser.json.");

    // Open in the Builder: the tree, with nothing open (it is not on the server), and its name
    // suggested for Save as new.
    await user.click(
      within(left).getByRole("button", { name: "Open “Too deep” from this browser in the Builder" }),
    );
    expect(current()).toEqual(FRANCE);
    expect(within(bar()).getByText("Not saved yet.")).toBeTruthy();
    expect(
      screen.getByText(
        /Opened “Too deep” from this browser\. It is not in the team's list until you save it/,
      ),
    ).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Save as new…" }));
    expect((screen.getByLabelText("Name this audience") as HTMLInputElement).value).toBe("Too deep");
    // Still in the browser, and still shown, until the person deals with it.
    expect(JSON.parse(localStorage.getItem(BROWSER_AUDIENCES_KEY)!)).toEqual(kept);
    expect(screen.getByTestId("saved-left-behind")).toBeTruthy();
  });
});

/** A user-event for a test that did not keep the one from `setup`. */
function user() {
  return userEvent.setup();
}
