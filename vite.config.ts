import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// One config for the SPA build and for Vitest. The app lives in src/app; the server and sandbox
// are Node code run by tsx and never bundled for the browser.
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist/app", emptyOutDir: true, sourcemap: true },
  test: {
    include: ["tests/**/*.test.{ts,tsx}"],
    environment: "node",
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
