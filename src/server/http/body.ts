import { fail, ProxyProblem } from "./answer";

/**
 * Reads a request body up to `max` bytes: a declared Content-Length over the limit is refused
 * before reading, and the bytes are counted as they stream in (a lying or absent length cannot
 * push more through).
 */
export async function readLimited(
  request: Request,
  max: number,
  incoming?: AsyncIterable<Uint8Array>,
): Promise<Uint8Array<ArrayBuffer>> {
  // The rest of the body is never read, so the connection cannot be reused: say so.
  const tooLarge = () =>
    fail(413, `The request is too large: at most ${Math.floor(max / 1024)} KiB.`, {
      headers: [["connection", "close"]],
    });
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > max)) throw tooLarge();
  // Under the Node server, reading Node's own request stream skips the Web Streams adapter, which
  // was the largest single cost of a small proxied call.
  const source = incoming ?? request.body;
  if (!source) return new Uint8Array(0);
  return collect(source as AsyncIterable<Uint8Array>, max, tooLarge);
}

/**
 * Concatenates a stream's chunks, refusing past `max` bytes (leaving the loop cancels the stream). A
 * body that breaks off (the client went away, a broken chunk) is the client's fault: a 400, not an
 * unexpected error of the proxy.
 */
async function collect(
  chunks: AsyncIterable<Uint8Array>,
  max: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of chunks) {
      total += chunk.byteLength;
      if (total > max) throw tooLarge();
      parts.push(chunk);
    }
  } catch (error) {
    if (error instanceof ProxyProblem) throw error;
    throw fail(400, "The request body broke off before its end.", { headers: [["connection", "close"]] });
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** How deep a JSON value nests (objects and arrays), without recursion. */
export function jsonDepth(value: unknown, stopAt: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [here, depth] = stack.pop()!;
    if (here === null || typeof here !== "object") continue;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(here))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return deepest;
}
