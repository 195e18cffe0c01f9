// @ts-check
/**
 * V8 flags of the test processes (Vitest's workers, and the product's processes that tests start):
 * WebAssembly compiled by the baseline compiler only. PGlite's module is large, and optimising its
 * hot functions took about 1.4 CPU-s at every start of a process or worker holding a database,
 * which a test then runs for seconds at most: a subset of the proxy's files took 29 % less CPU with
 * it (333 against 235 CPU-s). The code runs the same; only how fast a long-lived process gets.
 *
 * Plain JavaScript, imported with its extension: vite.config.ts reads it, and the config loader
 * Vite is moving to takes no extensionless TypeScript import.
 */
export const TEST_V8_FLAGS = ["--liftoff-only"];
