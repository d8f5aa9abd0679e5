// Debian's Chromium driven by playwright-core (never a downloaded browser), and the static server.
import { chromium } from 'playwright-core';
import { serve } from '../../web/serve.mjs';

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

export async function startBrowser() {
  const server = await serve({ port: 0 });
  const { port } = server.address();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  return {
    browser,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async close() {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}
