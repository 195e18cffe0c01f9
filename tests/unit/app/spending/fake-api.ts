import { vi } from "vitest";

/**
 * The proxy at the app's boundary (`fetch`, as the team page's tests do): each test answers the
 * requests it expects and records every one, with its body, to read what the app sent.
 */
export interface Seen {
  method: string;
  path: string;
  search: URLSearchParams;
  body: unknown;
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function fakeApi(answer: (seen: Seen) => Response | Promise<Response>): Seen[] {
  const seen: Seen[] = [];
  const BaseRequest = globalThis.Request;
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async (input: Request) => {
    const url = new URL(input.url);
    const text = await input.text();
    const one: Seen = {
      method: input.method,
      path: url.pathname,
      search: url.searchParams,
      body: text === "" ? undefined : JSON.parse(text),
    };
    seen.push(one);
    return answer(one);
  });
  return seen;
}
