import { describe, expect, it } from "vitest";
import { pgJson, pgText } from "../../../src/server/db/storable";

describe("what a purchase's record may hold, for PostgreSQL", () => {
  it("text: a NUL dropped, a lone surrogate made U+FFFD, a pair kept", () => {
    expect(pgText("a\u0000b")).toBe("ab");
    expect(pgText("\udfff\ud800 Acme")).toBe("\ufffd\ufffd Acme");
    expect(pgText("😀 Acme")).toBe("😀 Acme");
    expect(pgText(null)).toBeNull();
  });

  it("JSON: the same in every string, a NUL escape made U+FFFD", () => {
    expect(JSON.parse(pgJson({ v: "x\ud800", list: ["\udc00", "😀"], n: "a\u0000" }))).toEqual({
      v: "x\ufffd",
      list: ["\ufffd", "😀"],
      n: "a\ufffd",
    });
  });
});
