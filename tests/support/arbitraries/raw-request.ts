import fc from "fast-check";

export interface Recipe {
  /** What the request tries, for failure messages. */
  label: string;
  method: string;
  /** The request target exactly as written on the request line. */
  target: string;
  /**
   * Header lines in order; `{self}` in a value (or the target) is the proxy's own `host:port`, `{port}`
   * its port. A Host line is added unless one is given.
   */
  headers: [string, string][];
  body?: Uint8Array;
  /** The body bytes are written as given, framing included (no Content-Length is added). */
  rawFraming?: boolean;
  /** Close our sending side right after writing (a body cut off before its declared end). */
  halfClose?: boolean;
  /** The proxy must refuse this before anything leaves (no upstream call at all). */
  refused: boolean;
}

/** How fast-check prints a recipe in a counterexample: the label and a short look at the body. */
export function shown<T extends Recipe>(recipe: T): T {
  Object.defineProperty(recipe, fc.toStringMethod, {
    enumerable: false,
    value: () => {
      const body = recipe.body ? Buffer.from(recipe.body.subarray(0, 160)).toString("latin1") : "";
      const more = recipe.body && recipe.body.byteLength > 160 ? `… (${recipe.body.byteLength} bytes)` : "";
      const headers = recipe.headers.map(([n, v]) => `${n}: ${v.length > 60 ? `${v.slice(0, 60)}…` : v}`);
      return `${recipe.label}\n  ${headers.join("\n  ")}\n  body ${JSON.stringify(body)}${more}`;
    },
  });
  return recipe;
}

const encoder = new TextEncoder();
export const utf8 = (text: string) => encoder.encode(text);
export const latin1 = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0xff);

/** The bytes written on the socket (always `Connection: close`, so the answer ends with the connection). */
export function toBytes(recipe: Recipe, port: number): Uint8Array {
  const self = `127.0.0.1:${port}`;
  const fill = (text: string) => text.replaceAll("{self}", self).replaceAll("{port}", String(port));
  const headers = recipe.headers.map(([name, value]) => [name, fill(value)] as const);
  const lines = [`${recipe.method} ${fill(recipe.target)} HTTP/1.1`];
  if (!headers.some(([name]) => name.toLowerCase() === "host")) lines.push(`Host: ${self}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const body = recipe.body ?? new Uint8Array(0);
  const framed = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (!recipe.rawFraming && !framed && (body.byteLength > 0 || recipe.method === "POST"))
    lines.push(`Content-Length: ${body.byteLength}`);
  lines.push("Connection: close", "", "");
  // Header text may hold any byte (that is the point): written as latin1, one byte per char.
  const head = latin1(lines.join("\r\n"));
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head);
  out.set(body, head.byteLength);
  return out;
}
