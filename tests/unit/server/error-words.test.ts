import { expect, it } from "vitest";
import { reason } from "../../../src/server/db/database";

it("names the file-system errors of the embedded database's WebAssembly, never [object Object]", () => {
  const wasm = (errno: number) =>
    Object.assign(Object.create({ name: "ErrnoError" }), { name: "ErrnoError", errno });
  expect(reason(wasm(51))).toBe("ENOSPC: no space left on device");
  expect(reason(wasm(29))).toBe("EIO: input/output error");
  expect(reason(wasm(7))).toBe("file system error 7");
  const node = Object.assign(new Error("no space left on device, write"), { code: "ENOSPC" });
  expect(reason(node)).toBe("ENOSPC: no space left on device, write");
  expect(reason(new Error("plain"))).toBe("plain");
  expect(reason({ odd: true })).toBe("{ odd: true }");
  expect(reason("text")).toBe("text");
});
