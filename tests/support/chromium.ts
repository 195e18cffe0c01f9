import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium: browser tests and benchmarks never download a browser of their own. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium keeps
 * trying hosts this machine's closed network refuses.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
  });
}
