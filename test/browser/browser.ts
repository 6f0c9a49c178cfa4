// Headless Debian Chromium (apt-get install chromium) driven by playwright-core: a fresh profile
// per launch, console errors collected, screenshots into test-results/screenshots (git-ignored),
// and axe-core injected into the page for accessibility checks.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { TEST_ADMIN } from '../harness/test-app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface BrowserSession {
  page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
  screenshot(name: string): Promise<void>;
  /** axe-core violations of impact serious or critical on the current page: "rule: target". */
  seriousViolations(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<BrowserSession> {
  const profile = await mkdtemp(path.join(tmpdir(), 'plinth-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw new Error(`Chromium did not start (${CHROMIUM}); install it with apt-get install -y chromium`, {
      cause: err,
    });
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  await mkdir(SCREENSHOTS, { recursive: true });

  return {
    page,
    errors,
    async screenshot(name) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async seriousViolations() {
      // A transition in flight (a dialog fading in) would be judged half-drawn: the finite ones end
      // first (a spinner's endless animation is left running).
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime ?? Number.POSITIVE_INFINITY)))
            .map((a) => a.finished.catch(() => undefined)),
        ),
      );
      // Evaluated through the DevTools protocol: the dashboard's CSP forbids inline <script> tags.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
        const { violations } = await axe.run();
        return violations.map((v) => ({
          id: v.id as string,
          impact: v.impact as string,
          targets: (v.nodes as { target: string[] }[]).map((n) => n.target.join(' ')),
        }));
      });
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.targets.join(', ')}`);
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Fills the dashboard's sign-in form as the test admin and submits it (at `url` first, when given). */
export async function signInAsAdmin(page: Page, url?: string): Promise<void> {
  if (url) await page.goto(url);
  await page.getByLabel('Admin email').fill(TEST_ADMIN.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
