// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SavedAudiencesPanel } from "../../../../src/app/features/saved-audiences/saved-audiences-panel";
import {
  createSavedAudiencesStore,
  SAVED_AUDIENCES_KEY,
  type SavedAudiencesStore,
} from "../../../../src/app/features/saved-audiences/saved-audiences-store";
import { exportEnvelope } from "../../../../src/app/features/saved-audiences/tree-json";
import { emptyTree } from "../../../../src/app/lib/filter/tree";
import type { GroupNode } from "../../../../src/contract/filter";

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

let store: SavedAudiencesStore;
let opened: GroupNode[];

beforeEach(() => {
  localStorage.clear();
  store = createSavedAudiencesStore({ storage: localStorage, events: window });
  opened = [];
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** The panel beside a stand-in builder that holds the current tree. */
function Harness({ initial, count }: { initial: GroupNode; count: number | null }) {
  const [tree, setTree] = useState(initial);
  return (
    <>
      <pre data-testid="current">{JSON.stringify(tree)}</pre>
      <button type="button" onClick={() => setTree((t) => ({ ...t, negate: !t.negate }))}>
        Edit (stand-in for the builder)
      </button>
      <SavedAudiencesPanel
        currentTree={tree}
        currentCount={count}
        store={store}
        onOpen={(next) => {
          opened.push(next);
          setTree(next);
        }}
      />
    </>
  );
}

function setup(initial: GroupNode = GERMANY, count: number | null = 12_345) {
  const user = userEvent.setup();
  render(<Harness initial={initial} count={count} />);
  return user;
}

const current = () => JSON.parse(screen.getByTestId("current").textContent ?? "null") as GroupNode;
const list = () => screen.getByRole("list", { name: "" });
const rowNames = () =>
  screen.queryAllByRole("button", { name: /^Open / }).map((button) => button.textContent);

/** Opens a row's menu from the keyboard and picks `item`. */
async function menuAction(user: ReturnType<typeof userEvent.setup>, name: string, item: string) {
  const trigger = screen.getByRole("button", { name: `Actions for “${name}”` });
  trigger.focus();
  await user.keyboard("{Enter}");
  const menu = await screen.findByRole("menu");
  const entry = within(menu).getByRole("menuitem", { name: item });
  // Arrow down to the item, as a keyboard user would, then Enter.
  for (let i = 0; i < 6 && document.activeElement !== entry; i++) await user.keyboard("{ArrowDown}");
  expect(document.activeElement).toBe(entry);
  await user.keyboard("{Enter}");
}

describe("SavedAudiencesPanel", () => {
  it("shows an empty state, then saves the current audience under a name", async () => {
    const user = setup();
    expect(screen.getByRole("heading", { name: /Saved audiences/ })).toBeTruthy();
    expect(screen.getByText(/Nothing saved yet/)).toBeTruthy();

    const saveAs = screen.getByRole("button", { name: "Save as…" });
    await user.click(saveAs);
    expect(saveAs.getAttribute("aria-expanded")).toBe("true");
    const field = screen.getByLabelText("Name this audience") as HTMLInputElement;
    expect(document.activeElement).toBe(field);
    // Prefilled from the filter itself.
    expect(field.value).toBe('Country is "Germany"');
    await user.clear(field);
    await user.type(field, "  Germany leads  {Enter}");

    expect(rowNames()).toEqual(["Germany leads"]);
    const row = screen.getByRole("button", { name: "Open Germany leads" }).closest("li")!;
    expect(within(row).getByText('Country is "Germany"')).toBeTruthy();
    expect(within(row).getByText("12,345 people")).toBeTruthy();
    const time = row.querySelector("time")!;
    expect(time.textContent).toMatch(/^just now/);
    expect(time.getAttribute("title")).toMatch(/\d{4}, \d{1,2}:\d{2}/);
    expect(time.getAttribute("dateTime")).toBe(store.list()[0]?.createdAt);
    expect(screen.getByRole("status").textContent).toMatch(/Saved “Germany leads”/);
    expect(document.activeElement).toBe(saveAs);
    expect(store.list()[0]).toMatchObject({ name: "Germany leads", tree: GERMANY, lastCount: 12_345 });
  });

  it("a saved audience without a count says so", async () => {
    const user = setup(GERMANY, null);
    await user.click(screen.getByRole("button", { name: "Save as…" }));
    await user.type(screen.getByLabelText("Name this audience"), "{Enter}");
    expect(screen.getByText("not counted")).toBeTruthy();
  });

  it("asks for a name, refuses a taken one and offers the next free `Name (2)`", async () => {
    store.save("Germany leads", FRANCE, null);
    const user = setup();
    await user.click(screen.getByRole("button", { name: "Save as…" }));
    const field = screen.getByLabelText("Name this audience") as HTMLInputElement;
    await user.clear(field);
    await user.type(field, "{Enter}");
    expect(screen.getByRole("alert").textContent).toMatch(/Enter a name/);
    expect(field.getAttribute("aria-invalid")).toBe("true");

    await user.type(field, "germany LEADS{Enter}");
    expect(screen.getByRole("alert").textContent).toMatch(/“germany LEADS” is already used/);
    await user.click(screen.getByRole("button", { name: "Use “germany LEADS (2)”" }));
    expect(field.value).toBe("germany LEADS (2)");
    expect(document.activeElement).toBe(field);
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(rowNames()).toEqual(["germany LEADS (2)", "Germany leads"]);
  });

  it("Escape closes the form without saving and gives focus back", async () => {
    const user = setup();
    const saveAs = screen.getByRole("button", { name: "Save as…" });
    await user.click(saveAs);
    await user.keyboard("{Escape}");
    expect(screen.queryByLabelText("Name this audience")).toBeNull();
    expect(document.activeElement).toBe(saveAs);
    expect(store.list()).toEqual([]);
  });

  it("opens a saved audience from the keyboard menu, and can go back to the previous one", async () => {
    store.save("France", FRANCE, 99);
    const user = setup(GERMANY);
    await menuAction(user, "France", "Open");
    expect(opened).toEqual([FRANCE]);
    expect(current()).toEqual(FRANCE);
    const status = screen.getByRole("status");
    expect(status.textContent).toMatch(/Opened “France”/);
    await user.click(within(status).getByRole("button", { name: "Back to the previous audience" }));
    expect(current()).toEqual(GERMANY);
    expect(status.textContent).toMatch(/Back to the audience you had before/);
  });

  it("stops offering to go back once the opened audience is edited (that would lose the edits)", async () => {
    store.save("France", FRANCE, 99);
    const user = setup(GERMANY);
    await user.click(screen.getByRole("button", { name: "Open France" }));
    expect(screen.getByRole("button", { name: "Back to the previous audience" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Edit (stand-in for the builder)" }));
    expect(screen.queryByRole("button", { name: "Back to the previous audience" })).toBeNull();
    expect(screen.getByText(/Opened “France”/)).toBeTruthy();
  });

  it("opens with one click on the name; no going back is offered from an empty audience", async () => {
    store.save("France", FRANCE, 99);
    const user = setup(emptyTree());
    await user.click(screen.getByRole("button", { name: "Open France" }));
    expect(current()).toEqual(FRANCE);
    expect(within(screen.getByRole("status")).queryByRole("button", { name: /previous/ })).toBeNull();
  });

  it("renames in place; focus returns to the row's menu button", async () => {
    store.save("France", FRANCE, 99);
    store.save("Germany", GERMANY, 5);
    const user = setup();
    await menuAction(user, "France", "Rename…");
    const field = screen.getByLabelText("Rename “France”") as HTMLInputElement;
    expect(document.activeElement).toBe(field);
    expect(field.value).toBe("France");
    await user.clear(field);
    await user.type(field, "Germany{Enter}");
    expect(screen.getByRole("alert").textContent).toMatch(/already used/);
    await user.clear(field);
    await user.type(field, "French buyers{Enter}");
    expect(rowNames()).toEqual(["Germany", "French buyers"]);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Actions for “French buyers”" }));

    await menuAction(user, "Germany", "Rename…");
    await user.keyboard("x{Escape}");
    expect(rowNames()).toEqual(["Germany", "French buyers"]);
  });

  it("duplicates as `Name (2)`", async () => {
    store.save("France", FRANCE, 99);
    const user = setup();
    await menuAction(user, "France", "Duplicate");
    expect(rowNames()).toEqual(["France (2)", "France"]);
    expect(screen.getByRole("status").textContent).toMatch(/Duplicated as “France \(2\)”/);
  });

  it("deletes with an undo that stays until dismissed", async () => {
    store.save("France", FRANCE, 99);
    store.save("Germany", GERMANY, 5);
    const user = setup();
    await menuAction(user, "France", "Delete");
    expect(rowNames()).toEqual(["Germany"]);
    const undo = screen.getByRole("button", { name: "Undo delete of “France”" });
    expect(document.activeElement).toBe(undo);
    expect(screen.getByText("Deleted “France”.")).toBeTruthy();
    // It waits: nothing times it out.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    await user.click(undo);
    expect(rowNames()).toEqual(["Germany", "France"]);
    expect(store.list().find((item) => item.name === "France")?.lastCount).toBe(99);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Open France" }));

    await menuAction(user, "Germany", "Delete");
    await user.click(screen.getByRole("button", { name: "Dismiss: delete “Germany” for good" }));
    expect(screen.queryByText(/Deleted “Germany”/)).toBeNull();
    expect(rowNames()).toEqual(["France"]);
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: /Saved audiences/ }));
  });

  it("exports a saved audience as a JSON file", async () => {
    store.save("France", FRANCE, 99);
    const create = vi.spyOn(URL, "createObjectURL").mockReturnValue("blob:test/2");
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const user = setup();
    await menuAction(user, "France", "Export JSON");
    expect(create).toHaveBeenCalledTimes(1);
    expect(click).toHaveBeenCalledTimes(1);
    const blob = create.mock.calls[0]?.[0] as Blob;
    expect(JSON.parse(await blob.text())).toEqual(exportEnvelope(FRANCE, "France"));
    expect(screen.getByRole("status").textContent).toMatch(/Downloaded “France” as france.json/);
  });

  it("import shows every error with its path and leaves the current audience alone", async () => {
    const user = setup();
    await user.click(screen.getByRole("button", { name: "Import…" }));
    const bad = {
      format: "audience-builder/filter",
      version: 1,
      name: "Bad",
      filter: {
        type: "group",
        children: [
          { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Spain" },
          { type: "condition", column: "EMPLOYEE_COUNT_MIN", operator: "gte", value: "fifty" },
        ],
      },
    };
    await user.click(screen.getByLabelText("Or paste its JSON"));
    await user.paste(JSON.stringify(bad));
    await user.click(screen.getByRole("button", { name: "Import pasted JSON" }));
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toMatch(
      /The pasted text can’t be imported\. Your current audience is unchanged\./,
    );
    expect(
      within(alert)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["filter › children 1 › value: Enter a whole number"]);
    expect(opened).toEqual([]);
    expect(current()).toEqual(GERMANY);
  });

  it("imports a good file: it becomes the current audience, and Save as suggests its name", async () => {
    const user = setup();
    await user.click(screen.getByRole("button", { name: "Import…" }));
    const fileInput = screen.getByLabelText("Choose a file");
    expect(document.activeElement).toBe(fileInput);
    const file = new File([JSON.stringify(exportEnvelope(FRANCE, "French buyers"))], "whatever.json", {
      type: "application/json",
    });
    await user.upload(fileInput, file);
    await screen.findByText(/Opened the imported audience “French buyers”/);
    expect(current()).toEqual(FRANCE);
    expect(screen.queryByLabelText("Choose a file")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Back to the previous audience" }));
    expect(current()).toEqual(GERMANY);

    await user.click(screen.getByRole("button", { name: "Save as…" }));
    expect((screen.getByLabelText("Name this audience") as HTMLInputElement).value).toBe("French buyers");
  });

  it("a bad file shows its name and errors", async () => {
    const user = setup();
    await user.click(screen.getByRole("button", { name: "Import…" }));
    await user.upload(screen.getByLabelText("Choose a file"), new File(["{nope"], "notes.json"));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toMatch(/notes\.json can’t be imported/);
    expect(alert.textContent).toMatch(/not valid JSON/);
    expect(opened).toEqual([]);
  });

  it("follows changes made in another tab", async () => {
    setup();
    expect(rowNames()).toEqual([]);
    const otherTab = createSavedAudiencesStore({ storage: localStorage, events: null });
    otherTab.save("From another tab", FRANCE, 7);
    act(() => {
      window.dispatchEvent(
        new StorageEvent("storage", { key: SAVED_AUDIENCES_KEY, storageArea: localStorage }),
      );
    });
    expect(rowNames()).toEqual(["From another tab"]);
    expect(list()).toBeTruthy();
  });

  it("says when some saved audiences could not be read", () => {
    localStorage.setItem(SAVED_AUDIENCES_KEY, JSON.stringify([{ id: 1 }]));
    setup();
    expect(screen.getByText(/One saved audience could not be read/)).toBeTruthy();
  });
});
