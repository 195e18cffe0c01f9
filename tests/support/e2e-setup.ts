import type { TestProject } from "vitest/node";
import { ensureAppBuilt, waitForChromium } from "./browser";
import { launchChromiumServer } from "./chromium";

/**
 * The browser tests' set-up, once per run: the SPA built (once, before any file needs it) and one
 * Chromium started as a server. Each test file connects to it and works in contexts of its own
 * (no storage, no cookies shared), so no file pays for a browser launch.
 */
export default async function setup(project: TestProject) {
  await waitForChromium();
  const [server] = await Promise.all([launchChromiumServer(), ensureAppBuilt()]);
  project.provide("browserEndpoint", server.wsEndpoint());
  return () => server.close();
}
