import { type Browser, type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

/** Debian's Chromium: browser tests and benchmarks never download a browser of their own. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

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
