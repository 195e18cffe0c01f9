// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Role } from "../../../src/contract/team";

let role: Role | null = "analyst";
vi.mock("../../../src/app/api/session", () => ({
  useSession: () => ({ data: role === null ? undefined : { user: "cy", role } }),
}));

const { CheckoutRoleNotice } = await import("../../../src/app/features/checkout/checkout-workspace");
const { VerifyRoleNotice } = await import("../../../src/app/features/verify/role-notice");

afterEach(() => {
  cleanup();
  role = "analyst";
});

/**
 * Checkout's and Verify's notice for a role that may not buy: one shared component (ui/role-notice),
 * each page giving its own words (the e2e team test reads them).
 */
describe("the role notice of Checkout and Verify", () => {
  it("tells an analyst on Checkout what they can do, that nothing can be bought, and whom to ask", () => {
    render(<CheckoutRoleNotice />);
    const notice = screen.getByTestId("role-notice");
    expect(notice.getAttribute("role")).toBe("note");
    expect(notice.className).toBe("notice-warning role-notice");
    expect(notice.querySelector("strong")?.textContent).toBe(
      "Your role is analyst: nothing can be bought here.",
    );
    expect(notice.textContent).toBe(
      "Your role is analyst: nothing can be bought here. You can build, count, sample and share audiences. Buying contacts needs a buyer or an admin: ask an admin of your team." +
        "You can still estimate an export and review what a preview or an enrichment would cost; the confirm buttons stay off, and files bought by others cannot be downloaded.",
    );
  });

  it("tells an analyst on Verify that addresses cannot be verified here, and why", () => {
    render(<VerifyRoleNotice />);
    const notice = screen.getByTestId("role-notice");
    expect(notice.querySelector("strong")?.textContent).toBe(
      "Your role is analyst: addresses cannot be verified here.",
    );
    expect(notice.textContent).toBe(
      "Your role is analyst: addresses cannot be verified here. You can build, count, sample and share audiences. Verifying uses the team's credits, so it needs a buyer or an admin: ask an admin of your team." +
        "You can still read a list's review and follow the team's jobs; downloading their results needs a buyer.",
    );
  });

  it("says nothing to a buyer or an admin, nor before the session is known", () => {
    for (const who of ["buyer", "admin", null] as const) {
      role = who;
      const { container } = render(
        <>
          <CheckoutRoleNotice />
          <VerifyRoleNotice />
        </>,
      );
      expect(container.innerHTML).toBe("");
      cleanup();
    }
  });
});
