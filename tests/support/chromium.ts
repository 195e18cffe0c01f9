import { type Browser, type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

/**
 * Debian's Chromium as its headless shell (package `chromium-headless-shell`, the same build
 * without the desktop browser's window and GPU machinery; Playwright's own default for headless
 * runs): browser tests and benchmarks never download a browser of their own. The browser files
 * took 757 CPU-s with it where the full `/usr/bin/chromium` took 1,059 (395 s against 540 s of
 * wall, the e2e project alone on two cores). TEST_CHROMIUM picks another build.
 */
export const CHROMIUM_PATH = process.env.TEST_CHROMIUM ?? "/usr/bin/chromium-headless-shell";

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium keeps
 * trying hosts this machine's closed network refuses.
 */
const LAUNCH: LaunchOptions = {
  executablePath: CHROMIUM_PATH,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
  ],
};

export function launchChromium(): Promise<Browser> {
  return chromium.launch(LAUNCH);
}

/** One Chromium for a whole test run, which every browser test file connects to (e2e-setup.ts). */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(LAUNCH);
}

export function connectChromium(wsEndpoint: string): Promise<Browser> {
  return chromium.connect(wsEndpoint);
}
