// @vitest-environment jsdom
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cond, group, installDomShims, renderEditor, shape } from "./harness";

beforeAll(installDomShims);
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const ids = (node: { children: { id?: string | null }[] }) => node.children.map((c) => c.id);

describe("AND / OR", () => {
  it("switches a group's operator and names the group by it", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a"), cond("b")], { id: "root" }));
    expect(screen.getByRole("group", { name: "Filter: All of these (AND)" })).toBeTruthy();
    await user.click(screen.getByRole("radio", { name: "Any of these (OR)" }));
    expect(tree().op).toBe("OR");
    expect(screen.getByRole("group", { name: "Filter: Any of these (OR)" })).toBeTruthy();
    // Arrow keys move within the segmented control (one tab stop).
    await user.keyboard("{ArrowLeft}");
    expect(tree().op).toBe("AND");
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "All of these (AND)" }));
  });

  it("toggles the connector between siblings, marking it while it overrides the group", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a"), cond("b"), cond("c")]));
    const connector = screen.getByRole("button", { name: /^And before condition 2/ });
    expect(connector.textContent).toBe("and");
    expect(connector.getAttribute("data-override")).toBeNull();
    await user.click(connector);
    expect(tree().children[1]).toMatchObject({ joinWithPrevious: "OR" });
    const override = screen.getByRole("button", {
      name: /^Or before condition 2 \(overrides the group's AND\)/,
    });
    expect(override.textContent).toBe("or");
    expect(override.getAttribute("data-override")).toBe("true");
    await user.click(override);
    expect(tree().children[1]).not.toHaveProperty("joinWithPrevious");
    // No connector before the first item.
    expect(screen.queryByRole("button", { name: /before condition 1:/ })).toBeNull();
  });
});

describe("NOT", () => {
  it("negates a condition by wrapping it in a negated group, and back", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a"), cond("b")]));
    await user.click(screen.getByRole("button", { name: "NOT: exclude what condition 2 matches" }));
    expect(shape(tree())).toMatchObject({
      children: [{ type: "condition" }, { type: "group", negate: true, children: [{ type: "condition" }] }],
    });
    expect(screen.getByRole("group", { name: "Group 2: All of these (AND), negated (NOT)" })).toBeTruthy();
    const inner = screen.getByRole("button", { name: "NOT: exclude what condition 2.1 matches" });
    expect(inner.getAttribute("aria-pressed")).toBe("true");
    await user.click(inner);
    expect(shape(tree())).toMatchObject({ children: [{ type: "condition" }, { type: "condition" }] });
  });
});

describe("menu and shortcuts", () => {
  it("adds, duplicates and deletes through the node's menu (the model's commands, with key hints)", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a", "COUNTRY_NAME_PER", "Peru")]));
    await user.click(screen.getByRole("button", { name: "Actions for condition 1" }));
    const menu = screen.getByRole("menu");
    const duplicate = within(menu).getByRole("menuitem", { name: /Duplicate/ });
    expect(duplicate.textContent).toBe("Duplicate Ctrl+D");
    expect(duplicate.getAttribute("aria-keyshortcuts")).toBe("Control+D");
    // The first item cannot move up or be indented: offered, but disabled; only groups ungroup.
    expect(
      within(menu)
        .getByRole("menuitem", { name: /Move up/ })
        .getAttribute("aria-disabled"),
    ).toBe("true");
    expect(within(menu).queryByRole("menuitem", { name: /Ungroup/ })).toBeNull();
    await user.click(duplicate);
    expect(tree().children).toHaveLength(2);
    expect(tree().children[1]).toMatchObject({ value: "Peru" });
    expect(tree().children[1]?.id).not.toBe("a");
    // Focus goes to the copy's menu button.
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Actions for condition 2" }));

    await user.click(screen.getByRole("button", { name: "Actions for condition 1" }));
    await user.click(within(screen.getByRole("menu")).getByRole("menuitem", { name: /Delete/ }));
    expect(tree().children).toHaveLength(1);
    expect(tree().children[0]?.id).not.toBe("a");

    await user.click(screen.getByRole("button", { name: "Actions for condition 1" }));
    await user.click(within(screen.getByRole("menu")).getByRole("menuitem", { name: /Add job title match/ }));
    expect(tree().children[1]).toMatchObject({ type: "semantic", on: "title" });
  });

  it("mounts a node's menu only while it is open; from the keyboard it opens on its first item", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a", "COUNTRY_NAME_PER", "Peru"), cond("b")]));
    const button = screen.getByRole("button", { name: "Actions for condition 1" });
    expect(button.getAttribute("aria-haspopup")).toBe("menu");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(document.querySelector("[data-radix-menu-content]")).toBeNull();

    button.focus();
    await user.keyboard("{Enter}");
    const menu = screen.getByRole("menu");
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(button.getAttribute("aria-controls")).toBe(menu.id);
    expect(menu.getAttribute("aria-labelledby")).toBe(button.id);
    expect(document.activeElement?.textContent).toBe("Add condition Ctrl+Enter");
    // Escape closes it and gives focus back to the button; nothing changed.
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(tree().children).toHaveLength(2);

    // A press opens it, a second press closes it; only one menu at a time.
    await user.click(button);
    expect(screen.getAllByRole("menu")).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Actions for condition 2" }));
    expect(screen.getAllByRole("menu")).toHaveLength(1);
    expect(screen.getByRole("menu").getAttribute("aria-labelledby")).toBe(
      screen.getByRole("button", { name: "Actions for condition 2" }).id,
    );
    await user.click(screen.getByRole("button", { name: "Actions for condition 2" }));
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("adds, duplicates and deletes with the keyboard on the focused node", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a", "COUNTRY_NAME_PER", "Peru")]));
    await user.click(screen.getByRole("combobox", { name: "Value of condition 1" }));
    await user.keyboard("{Control>}d{/Control}");
    expect(tree().children).toHaveLength(2);
    // Focus follows to the same field of the copy.
    expect(document.activeElement).toBe(screen.getByRole("combobox", { name: "Value of condition 2" }));

    await user.keyboard("{Control>}{Enter}{/Control}");
    expect(tree().children).toHaveLength(3);
    expect(tree().children[2]).toMatchObject({ type: "condition", value: "" });

    // Ctrl+Backspace deletes a word in a text field, so it deletes the node only from elsewhere.
    await user.keyboard("{Control>}{Backspace}{/Control}");
    expect(tree().children).toHaveLength(3);
    screen.getByRole("button", { name: "Move condition 3" }).focus();
    await user.keyboard("{Control>}{Backspace}{/Control}");
    expect(tree().children).toHaveLength(2);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Move condition 2" }));

    // Ctrl+Shift+Enter from the root's title adds a group to the root.
    await user.click(screen.getByRole("button", { name: "Add group to the whole filter" }));
    expect(tree().children[2]).toMatchObject({ type: "group", children: [{ type: "condition" }] });
  });

  it("moves up, down, indents and outdents with Alt+Arrows, focus following the node", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a"), cond("b"), cond("c")]));
    screen.getByRole("button", { name: "Move condition 3" }).focus();
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(ids(tree())).toEqual(["a", "c", "b"]);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Move condition 2" }));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(ids(tree())).toEqual(["a", "b", "c"]);

    // Indent: c joins b in a new group; outdent takes it back out.
    await user.keyboard("{Alt>}{ArrowRight}{/Alt}");
    expect(shape(tree())).toMatchObject({
      children: [
        { type: "condition" },
        { type: "group", children: [{ type: "condition" }, { type: "condition" }] },
      ],
    });
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Move condition 2.2" }));
    await user.keyboard("{Alt>}{ArrowLeft}{/Alt}");
    expect(tree().children.map((c) => c.type)).toEqual(["condition", "group", "condition"]);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Move condition 3" }));

    // A refused move says why, politely.
    screen.getByRole("button", { name: "Move condition 1" }).focus();
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(screen.getByText("It is already first in its group.").getAttribute("role")).toBe("status");
  });

  it("moves the node on Alt+Arrows from anywhere in its row, but a select keeps its own", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([cond("a"), cond("b")]));
    // (A click opens the value's list: its first Alt+Up would close it, as the combobox pattern asks.)
    screen.getByRole("combobox", { name: "Value of condition 2" }).focus();
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(ids(tree())).toEqual(["b", "a"]);
    screen.getByRole("combobox", { name: "Comparison of condition 2" }).focus();
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(ids(tree())).toEqual(["b", "a"]);
  });

  it("leaves Alt+Arrows to a text field on macOS, where they move the caret", async () => {
    const platform = Object.getOwnPropertyDescriptor(Navigator.prototype, "platform");
    Object.defineProperty(navigator, "platform", { value: "MacIntel", configurable: true });
    try {
      const user = userEvent.setup();
      const { tree } = renderEditor(group([cond("a"), cond("b")]));
      await user.click(screen.getByRole("combobox", { name: "Value of condition 2" }));
      await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
      expect(ids(tree())).toEqual(["a", "b"]);
    } finally {
      delete (navigator as { platform?: string }).platform;
      if (platform) Object.defineProperty(Navigator.prototype, "platform", platform);
    }
  });
});

describe("collapse", () => {
  it("folds a group into its one-line summary and back", async () => {
    const user = userEvent.setup();
    renderEditor(
      group([
        cond("a", "COUNTRY_NAME_PER", "France"),
        group([cond("b", "JOB_LEVEL_PER", "Director"), cond("c", "JOB_LEVEL_PER", "VP")], {
          op: "OR",
          id: "g",
        }),
      ]),
    );
    expect(screen.getByRole("combobox", { name: "Value of condition 2.1" })).toBeTruthy();
    const collapse = screen.getByRole("button", { name: "Collapse group 2" });
    expect(collapse.getAttribute("aria-expanded")).toBe("true");
    await user.click(collapse);
    expect(screen.queryByRole("combobox", { name: "Value of condition 2.1" })).toBeNull();
    const summary = screen.getByRole("button", { name: /^Expand group 2: / });
    expect(summary.textContent).toBe('Job level is "Director" or Job level is "VP"');
    expect(screen.getByRole("button", { name: "Expand group 2" }).getAttribute("aria-expanded")).toBe(
      "false",
    );
    await user.click(summary);
    expect(screen.getByRole("combobox", { name: "Value of condition 2.1" })).toBeTruthy();
  });

  it("opens a collapsed group when a command moves focus into it", async () => {
    const user = userEvent.setup();
    const { tree } = renderEditor(group([group([cond("b")], { id: "g" }), cond("c")]));
    await user.click(screen.getByRole("button", { name: "Collapse group 1" }));
    screen.getByRole("button", { name: "Move condition 2" }).focus();
    await user.keyboard("{Alt>}{ArrowRight}{/Alt}");
    expect(shape(tree())).toMatchObject({ children: [{ type: "group", children: [{}, {}] }] });
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Move condition 1.2" }));
  });
});
