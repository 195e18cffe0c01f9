import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../src/app/api/api-error";
import { createGenerationMemory, isAbsent, isRetired, preferV2 } from "../../../src/app/api/generations";

const answer = (status: number) => new ApiError({ kind: "other", status, message: `status ${status}` });
const fail = (status: number) => vi.fn(async () => Promise.reject(answer(status)));
const ok = <T>(value: T) => vi.fn(async () => value);

describe("isAbsent / isRetired", () => {
  it("404 and 405 mean the path is absent; 410 means retired; nothing else does", () => {
    expect([404, 405].map((s) => isAbsent(answer(s)))).toEqual([true, true]);
    expect([400, 410, 422, 500].map((s) => isAbsent(answer(s)))).toEqual([false, false, false, false]);
    expect(isRetired(answer(410))).toBe(true);
    expect(isRetired(answer(404))).toBe(false);
    expect(isAbsent(new Error("404"))).toBe(false);
  });
});

describe("preferV2", () => {
  it("uses v2 when it answers, and never calls v1", async () => {
    const memory = createGenerationMemory();
    const v1 = ok("v1");
    expect(await preferV2("op", { v2: ok("v2"), v1 }, memory)).toEqual({
      value: "v2",
      generation: "v2",
      name: "v2",
    });
    expect(v1).not.toHaveBeenCalled();
  });

  it.each([404, 405])(
    "falls back to v1 when v2 answers %i, and remembers it for the operation",
    async (status) => {
      const memory = createGenerationMemory();
      const v2 = fail(status);
      const v1 = ok("v1");
      expect(await preferV2("op", { v2, v1 }, memory)).toEqual({ value: "v1", generation: "v1", name: "v1" });
      expect(memory.absent.has("op:v2")).toBe(true);
      // The next call goes straight to v1 ...
      await preferV2("op", { v2, v1 }, memory);
      expect(v2).toHaveBeenCalledTimes(1);
      expect(v1).toHaveBeenCalledTimes(2);
      // ... for that operation only.
      const other = ok("v2 other");
      expect((await preferV2("other", { v2: other, v1 }, memory)).generation).toBe("v2");
    },
  );

  it("does not fall back on a v2 answer that is an answer (400, 402, 422, 5xx)", async () => {
    for (const status of [400, 402, 410, 422, 502]) {
      const v1 = ok("v1");
      await expect(preferV2("op", { v2: fail(status), v1 }, createGenerationMemory())).rejects.toMatchObject({
        status,
      });
      expect(v1).not.toHaveBeenCalled();
    }
  });

  it("a v1 410 means v2: when the memory skipped v2, it is tried again", async () => {
    const memory = createGenerationMemory();
    memory.absent.add("op:v2");
    const v2 = ok("v2");
    expect(await preferV2("op", { v2, v1: fail(410) }, memory)).toEqual({
      value: "v2",
      generation: "v2",
      name: "v2",
    });
    expect(memory.v1Retired).toBe(true);
    expect(v2).toHaveBeenCalledTimes(1);
  });

  it("a v2 absence still asks v1 once, even when v1 was known retired", async () => {
    const memory = createGenerationMemory();
    memory.v1Retired = true;
    const v1 = fail(410);
    await expect(preferV2("op", { v2: fail(404), v1 }, memory)).rejects.toMatchObject({
      message: expect.stringMatching(/neither in API v2 nor in v1/),
    });
    expect(v1).toHaveBeenCalledTimes(1);
  });

  it("an operation only v1 has runs on v1; its 410 is thrown as it is", async () => {
    const memory = createGenerationMemory();
    expect(await preferV2("v1only", { v1: ok(1) }, memory)).toEqual({
      value: 1,
      generation: "v1",
      name: "v1",
    });
    await expect(preferV2("v1only", { v1: fail(410) }, memory)).rejects.toMatchObject({ status: 410 });
  });

  it("an operation only v2 has: a 404 is thrown as it is", async () => {
    await expect(preferV2("v2only", { v2: fail(404) }, createGenerationMemory())).rejects.toMatchObject({
      status: 404,
      message: "status 404",
    });
  });

  it("v2 absent and v1 retired: a readable error", async () => {
    const memory = createGenerationMemory();
    await expect(preferV2("jobs", { v2: fail(404), v1: fail(410) }, memory)).rejects.toMatchObject({
      message: expect.stringMatching(/\(jobs\).*v2.*v1, which is retired/),
    });
    expect(memory).toMatchObject({ v1Retired: true });
    expect(memory.absent.has("jobs:v2")).toBe(true);
  });

  it("when the memory rules out both, v2 is tried again (the service may have changed)", async () => {
    const memory = createGenerationMemory();
    memory.absent.add("op:v2");
    memory.v1Retired = true;
    const v2 = ok("back");
    expect(await preferV2("op", { v2, v1: ok("never") }, memory)).toEqual({
      value: "back",
      generation: "v2",
      name: "v2",
    });
  });

  it("other failures (network, abort) pass through unchanged", async () => {
    const abort = new DOMException("aborted", "AbortError");
    const v1 = ok("v1");
    await expect(
      preferV2("op", { v2: async () => Promise.reject(abort), v1 }, createGenerationMemory()),
    ).rejects.toBe(abort);
    expect(v1).not.toHaveBeenCalled();
  });

  it("a v1 404 is an answer (no such job), not a missing path: thrown as it is, nothing remembered", async () => {
    const memory = createGenerationMemory();
    await expect(preferV2("jobStatus", { v2: fail(404), v1: fail(404) }, memory)).rejects.toMatchObject({
      status: 404,
      message: "status 404",
    });
    expect(memory.absent.has("jobStatus:v1")).toBe(false);
  });
});
