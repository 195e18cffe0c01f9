// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Field } from "../../../src/app/ui/field";

afterEach(cleanup);

/** The texts that describe a control, in order, as a screen reader reads them. */
const description = (control: HTMLElement) =>
  (control.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent);

describe("Field: a label, a control, a hint and an error, wired together", () => {
  it("names the control by its label and describes it by its hint", () => {
    render(
      <Field label="Name" hint="The name to sign in with.">
        {(c) => <input {...c} />}
      </Field>,
    );
    const input = screen.getByRole("textbox", { name: "Name" });
    expect(description(input)).toEqual(["The name to sign in with."]);
    expect(input.getAttribute("aria-invalid")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("marks the control invalid and announces the error, after the hint", () => {
    render(
      <Field label="Cap" hint="Blank: no cap." error="Enter a whole number.">
        {(c) => <input {...c} />}
      </Field>,
    );
    const input = screen.getByRole("textbox", { name: "Cap" });
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(description(input)).toEqual(["Blank: no cap.", "Enter a whole number."]);
    expect(screen.getByRole("alert").textContent).toBe("Enter a whole number.");
  });

  it("lets the error take the hint's place where asked", () => {
    render(
      <Field label="How many" hint="1 to 100" error="Enter a whole number from 1 to 100." errorReplacesHint>
        {(c) => <input {...c} />}
      </Field>,
    );
    expect(screen.queryByText("1 to 100")).toBeNull();
    expect(description(screen.getByRole("textbox", { name: "How many" }))).toEqual([
      "Enter a whole number from 1 to 100.",
    ]);
  });

  it("describes nothing when there is neither hint nor error, and keeps fields apart", () => {
    render(
      <>
        <Field label="First">{(c) => <input {...c} />}</Field>
        <Field label="Second">{(c) => <input {...c} />}</Field>
      </>,
    );
    const first = screen.getByRole("textbox", { name: "First" });
    expect(first.getAttribute("aria-describedby")).toBeNull();
    expect(first.id).not.toBe(screen.getByRole("textbox", { name: "Second" }).id);
  });
});
