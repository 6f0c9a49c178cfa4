// The project admin's MFA in Chromium against a live Plinth: the console refuses to require MFA
// before a verified authenticator exists; the admin enrolls one (QR code and secret shown once, a
// wrong first code refused), turns the requirement on, signs out, and signs in again with the
// authenticator's code (codes made with otpauth at the server's manual clock) after a wrong code
// and a spent one are refused; five wrong codes lock it for five minutes (clock moved, no sleep);
// the last authenticator cannot go while required. Axe on each screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../harness/mfa.js';
import { TEST_ADMIN } from '../harness/test-app.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

let live: LiveDashboard;
/** The authenticator's secret, as the console showed it at enrollment. */
let secret = '';

/** A 6-digit code the server cannot accept now (neither this step's nor a neighbour's). */
function wrongCode(): string {
  const near = new Set([-1, 0, 1].map((offset) => totpCode(live.t, secret, offset)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

const adminFactors = async () => (await live.api('GET', '/api/auth/admin/mfa/factors')).json.data;
const requireAdminMfa = async () => (await live.api('GET', '/api/auth/mfa/settings')).json.requireAdminMfa;

async function openAdminMfaTab() {
  const { page } = live.browser;
  await page.getByRole('tab', { name: 'Admin MFA' }).click();
  await page.getByLabel('Require MFA for the project admin').waitFor();
}

beforeAll(async () => {
  live = await startLiveDashboard();
  await live.signIn(live.browser, '/auth-settings');
}, 60_000);

afterAll(() => live?.close());

describe('admin MFA in Chromium', { timeout: 60_000 }, () => {
  it('refuses to require MFA while the admin has no verified authenticator', async () => {
    const { page } = live.browser;
    await openAdminMfaTab();
    await page.getByText('The project admin has no TOTP factor yet.').waitFor();
    await live.screenIsClean('admin-mfa-empty');
    await page.getByLabel('Require MFA for the project admin').click({ force: true });
    await page.getByText('The project admin has no verified TOTP factor.').waitFor();
    await page.getByText('Add an authenticator below and verify its first code').waitFor();
    expect(await page.getByLabel('Require MFA for the project admin').isChecked()).toBe(false);
    expect(await requireAdminMfa()).toBe(false);
  });

  it('enrolls an authenticator: QR code and secret once, a wrong first code refused', async () => {
    const { page } = live.browser;
    await page.getByLabel('Authenticator name').fill('Admin phone');
    await page.getByRole('button', { name: 'Add authenticator' }).click();
    const qr = page.getByRole('img', { name: 'QR code of Admin phone' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    // The QR code is drawn (a '#' left raw in the data URI would cut the SVG short: a broken image).
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt="QR code of Admin phone"]');
      return img?.complete === true;
    });
    expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await adminFactors()).toEqual([
      expect.objectContaining({ friendlyName: 'Admin phone', status: 'unverified' }),
    ]);
    await live.screenIsClean('admin-mfa-enroll');

    const first = page.getByLabel('First code from the app');
    await first.fill(wrongCode());
    await page.getByRole('button', { name: 'Verify code' }).click();
    await page.getByText('Invalid MFA code.').waitFor();
    expect((await adminFactors())[0].status).toBe('unverified');

    await first.fill(totpCode(live.t, secret));
    await page.getByRole('button', { name: 'Verify code' }).click();
    await page.getByText('Authenticator “Admin phone” verified.').waitFor();
    // The earlier refusal of the switch no longer shows once a verified authenticator exists.
    await page.getByText('The setting was not changed').waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Admin phone\s+verified/ }).waitFor();
    // The secret is gone from the page once confirmed; the API never shows it again.
    expect(await page.getByText(secret).count()).toBe(0);
    expect(await adminFactors()).toEqual([expect.objectContaining({ status: 'verified' })]);
    expect(JSON.stringify(await adminFactors())).not.toContain(secret);
  });

  it('requires MFA: the sign-in asks for the code, refuses a wrong and a spent one, takes the next', async () => {
    const { page } = live.browser;
    await page.getByLabel('Require MFA for the project admin').click({ force: true });
    await page.getByText('MFA is now required for the admin sign-in.').waitFor();
    expect(await requireAdminMfa()).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin email').fill(TEST_ADMIN.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const codeField = page.getByRole('textbox', { name: 'Authentication code' });
    await codeField.waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await live.screenIsClean('sign-in-code');

    await codeField.fill(wrongCode());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That code is not right, or it was already used.').waitFor();
    expect(await codeField.inputValue()).toBe('');
    await live.screenIsClean('sign-in-code-wrong');

    // The step whose code verified the authenticator is spent: refused too.
    await codeField.fill(totpCode(live.t, secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await codeField.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);

    live.t.clock.advance(30_000);
    await codeField.fill(totpCode(live.t, secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('heading', { name: 'Auth settings' }).waitFor();
  });

  it('locks the authenticator after five wrong codes, even for the right one, until five minutes pass', async () => {
    const { page } = live.browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin email').fill(TEST_ADMIN.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const codeField = page.getByRole('textbox', { name: 'Authentication code' });
    await codeField.waitFor();
    const submit = async (code: string) => {
      await codeField.fill(code);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/api/auth/admin/sessions')),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      return answer.status();
    };
    for (let i = 0; i < 4; i++) expect(await submit(wrongCode())).toBe(400);
    expect(await submit(wrongCode())).toBe(429);
    await page.getByRole('alert').getByText('the authenticator is locked for up to five minutes').waitFor();
    live.t.clock.advance(30_000);
    expect(await submit(totpCode(live.t, secret))).toBe(429);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);

    live.t.clock.advance(300_000);
    expect(await submit(totpCode(live.t, secret))).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('keeps the last authenticator while MFA is required; off, it can go', async () => {
    const { page } = live.browser;
    await openAdminMfaTab();
    expect(await page.getByLabel('Require MFA for the project admin').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Remove Admin phone' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await dialog.getByText("The admin's last verified factor cannot go while MFA is required.").waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await adminFactors()).toHaveLength(1);

    await page.getByLabel('Require MFA for the project admin').click({ force: true });
    await page.getByText('MFA is no longer required for the admin sign-in.').waitFor();
    await page.getByRole('button', { name: 'Remove Admin phone' }).click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('The project admin has no TOTP factor yet.').waitFor();
    expect(await adminFactors()).toEqual([]);
    expect(await requireAdminMfa()).toBe(false);
  });

  it('logged no console errors but the refusals it provoked', () => {
    const refusals = /^console: Failed to load resource: the server responded with a status of (400|401|409|429) /;
    expect(live.browser.errors.filter((e) => !refusals.test(e))).toEqual([]);
  });
});
