// @vitest-environment jsdom
import { QueryClientProvider, QueryObserver } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../src/app/api/api-error";
import { type Session, sessionEnded, sessionQueryOptions } from "../../../src/app/api/session";
import { SESSION_ENDED_TEXT, SignInPage } from "../../../src/app/layout/sign-in-page";
import { createQueryClient } from "../../../src/app/query-client";

const BO: Session = { mode: "sandbox", plan: "PAYG", user: "bo", role: "buyer", keyLast4: "abcd" };
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

let signedIn = true;
beforeEach(() => {
  signedIn = true;
  const BaseRequest = globalThis.Request;
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async () =>
    signedIn ? json(BO) : json({ detail: "Sign in to use Audience Builder." }, 401),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const unauthenticated = new ApiError({ kind: "unauthenticated", message: "Sign in", status: 401 });

describe("a session that ended under a signed-in person", () => {
  it("is a 401 after the session was read with a person; not the first 401, nor local mode", () => {
    expect(sessionEnded({ error: unauthenticated, data: BO })).toBe(true);
    expect(sessionEnded({ error: unauthenticated, data: undefined })).toBe(false);
    expect(sessionEnded({ error: unauthenticated, data: { ...BO, user: null } })).toBe(false);
    expect(sessionEnded({ error: null, data: BO })).toBe(false);
  });

  it("is noticed when the session is asked again and refused; a reset (sign-out on purpose) is not one", async () => {
    const queryClient = createQueryClient();
    const observer = new QueryObserver(queryClient, sessionQueryOptions());
    const unsubscribe = observer.subscribe(() => {});
    await vi.waitFor(() => expect(observer.getCurrentResult().data?.user).toBe("bo"));
    signedIn = false;
    await queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey });
    expect(sessionEnded(observer.getCurrentResult())).toBe(true);
    await queryClient.resetQueries({ queryKey: sessionQueryOptions().queryKey });
    await vi.waitFor(() => expect(observer.getCurrentResult().error).toBeInstanceOf(ApiError));
    expect(sessionEnded(observer.getCurrentResult())).toBe(false);
    unsubscribe();
  });

  it("the sign-in page says why only then", () => {
    const { unmount } = render(
      <QueryClientProvider client={createQueryClient()}>
        <SignInPage sessionEnded />
      </QueryClientProvider>,
    );
    expect(screen.getByText(SESSION_ENDED_TEXT)).toBeTruthy();
    expect(SESSION_ENDED_TEXT).toBe(
      "You were signed out: your session ended (an admin may have changed your access). Sign in again.",
    );
    unmount();
    render(
      <QueryClientProvider client={createQueryClient()}>
        <SignInPage />
      </QueryClientProvider>,
    );
    expect(screen.queryByText(SESSION_ENDED_TEXT)).toBeNull();
  });
});
