import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// One config for the SPA build and for Vitest. The app lives in src/app; the server and sandbox
// are Node code run by tsx and never bundled for the browser.
// The app writes numbers and dates in the browser's locale (src/app/lib/format.ts); the test
// processes, forked from this one, read theirs from the environment at start: pin it.
if (process.env.VITEST) process.env.LC_ALL = "en_US.UTF-8";

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist/app", emptyOutDir: true, sourcemap: true },
  test: {
    environment: "node",
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      // Everything, with the proxy's store embedded (PGlite), as `npm start` runs it.
      { extends: true, test: { name: "embedded", include: ["tests/**/*.test.{ts,tsx}"] } },
      // The proxy's integration suite again on a real PostgreSQL server (Debian's, started for the run).
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["tests/integration/server/**/*.test.ts"],
          globalSetup: ["tests/support/global-setup.ts", "tests/support/postgres-setup.ts"],
        },
      },
    ],
  },
});
