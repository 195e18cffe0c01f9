// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { type ReactNode, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { lazyPart } from "../../../src/app/ui/lazy-part";
import { deferred } from "./audience/harness";

afterEach(cleanup);

const Real = ({ name }: { name: string }) => <button type="button">{`${name} (loaded)`}</button>;

describe("lazyPart", () => {
  it("fetches its code at once, shows its stand-in until it arrives, then the part", async () => {
    const module = deferred<{ default: typeof Real }>();
    let fetches = 0;
    const Part = lazyPart(
      () => {
        fetches++;
        return module.promise;
      },
      ({ name }) => <button type="button">{`${name} (waiting)`}</button>,
    );
    expect(fetches).toBe(1); // before any render: beside the screen's first requests
    render(<Part name="Columns" />);
    expect(screen.getByRole("button").textContent).toBe("Columns (waiting)");
    await act(async () => module.resolve({ default: Real }));
    expect(screen.getByRole("button").textContent).toBe("Columns (loaded)");
    expect(fetches).toBe(1);
  });

  it("renders at once, with no stand-in, once its code has arrived", async () => {
    const Part = lazyPart(
      () => Promise.resolve({ default: Real }),
      () => <p>stand-in</p>,
    );
    await act(async () => {});
    render(<Part name="Fields" />);
    expect(screen.queryByText("stand-in")).toBeNull();
    expect(screen.getByRole("button").textContent).toBe("Fields (loaded)");
  });

  it("keeps the state of a part that arrived after its first render when its screen renders again", async () => {
    // The Builder's insights said "Added …" and lost it at the next edit: the part was mounted anew.
    const module = deferred<{ default: (props: { label: string }) => ReactNode }>();
    const Part = lazyPart(() => module.promise);
    const Counter = ({ label }: { label: string }) => {
      const [presses, setPresses] = useState(0);
      return (
        <button type="button" onClick={() => setPresses((n) => n + 1)}>
          {`${label}: ${presses}`}
        </button>
      );
    };
    const { rerender } = render(<Part label="first" />);
    await act(async () => module.resolve({ default: Counter }));
    await act(async () => screen.getByRole("button").click());
    expect(screen.getByRole("button").textContent).toBe("first: 1");
    rerender(<Part label="second" />);
    expect(screen.getByRole("button").textContent).toBe("second: 1");
  });

  it("fetches again at the next render after a failed fetch", async () => {
    let fetches = 0;
    const Part = lazyPart(
      () => {
        fetches++;
        return fetches === 1 ? Promise.reject(new Error("offline")) : Promise.resolve({ default: Real });
      },
      () => <p>stand-in</p>,
    );
    await act(async () => {});
    expect(fetches).toBe(1);
    render(<Part name="Actions" />);
    await act(async () => {});
    expect(fetches).toBe(2);
    expect(screen.getByRole("button").textContent).toBe("Actions (loaded)");
  });

  it("passes on a press of its stand-in made before its code arrived: the part arrives asked", async () => {
    const module = deferred<{ default: (props: { askedEarly?: boolean }) => ReactNode }>();
    const Part = lazyPart(
      () => module.promise,
      (_props, ask) => (
        <button type="button" onClick={ask}>
          stand-in
        </button>
      ),
    );
    render(<Part />);
    await act(async () => screen.getByRole("button", { name: "stand-in" }).click());
    await act(async () =>
      module.resolve({ default: ({ askedEarly }) => <p>{askedEarly ? "opened" : "closed"}</p> }),
    );
    expect(screen.getByText("opened")).toBeTruthy();
  });
});
