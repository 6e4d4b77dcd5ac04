import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

/**
 * Headless Chromium for the page tests (Debian's `/usr/bin/chromium`, or CHROMIUM_PATH), and pages
 * whose waits have a generous deadline: Playwright's default of 30 s is a wall-clock margin a loaded
 * machine can miss, so every wait without its own timeout gets 120 s (a wait that never succeeds still
 * fails, only later).
 */
export const PAGE_TIMEOUT_MS = 120_000;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: PAGE_TIMEOUT_MS,
  });
}

export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await browser.newPage(options);
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  return page;
}
