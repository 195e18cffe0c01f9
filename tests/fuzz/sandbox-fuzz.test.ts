import { type ChildProcess, spawn as spawnChild } from "node:child_process";
import { afterAll, expect, it } from "vitest";

/**
 * The fuzz run (./sandbox-fuzz.ts, also `npm run fuzz`) as part of `npm test`: in the last group,
 * beside the timed browser file, which alone leaves a core idle for a minute. It runs at the lowest
 * CPU priority (nice 19), so the timed file still has the machine it measures on, and as a process
 * of its own, which its sandbox's server timers and DuckDB's threads need.
 */
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill();
});

it("the sandbox answers every fuzzed body with its record or a success, never a 5xx", {
  timeout: 600_000,
}, async () => {
  child = spawnChild(
    "nice",
    ["-n", "19", process.execPath, "--import", "tsx", "tests/fuzz/sandbox-fuzz.ts"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const collect = (d: Buffer) => {
    output += d;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const running = child;
  const code = await new Promise<number | null>((resolve) => running.on("close", resolve));
  // The per-operation tallies, for the run's log either way.
  console.log(output.trimEnd());
  expect(code, output.slice(-4000)).toBe(0);
  expect(output).toMatch(/^fuzz: \d+ passed, 0 failed$/m);
});
