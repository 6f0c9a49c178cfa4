// Users, Auth settings and Secrets in a real browser against a live Plinth, with a real SMTP
// peer: the admin sets SMTP to the peer and sends a test email, turns sign-up off, adds a
// redirect URL and previews a template; creates a user, finds them, revokes their session and
// sends them a reset email; creates, updates and deletes a secret, rotates the API key and the signing key. Each
// step is checked in the page and through the API; axe, screenshots and a phone-sized window.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { idpMetadataXml, makeIdpKey, type SamlIdp, startSamlIdp } from '../harness/saml-idp.js';
import { refreshMobile } from '../harness/sessions.js';
import { startSmtpPeer, type SmtpPeer } from '../harness/smtp-peer.js';
import { bearer, startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);
const NEW_USER = { email: 'ada.lovelace@example.com', password: 'analytical-engine-1843' };
const SECRET = 'PAYMENT_WEBHOOK_SECRET';

let t: TestApp;
let peer: SmtpPeer;
let baseUrl = '';
let browser: BrowserSession;
let idp: SamlIdp;
/** The API key as the test started (rotated in the last step). */
let originalApiKey = '';

const asAdmin = () => bearer(originalApiKey);
const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  t.request({ method, url, headers: asAdmin(), payload: payload as Record<string, unknown> });

const signIn = (session: BrowserSession, path: string) => signInAsAdmin(session.page, `${baseUrl}/dashboard${path}`);

/** Clicks a confirm button, then the confirming button of the dialog it opens. */
async function confirm(session: BrowserSession, button: string, confirmLabel: string) {
  await session.page.getByRole('button', { name: button, exact: true }).click();
  const dialog = session.page.getByRole('dialog');
  await dialog.getByRole('button', { name: confirmLabel, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function checkScreen(session: BrowserSession, name: string) {
  await session.screenshot(name);
  expect(await session.seriousViolations()).toEqual([]);
}

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  peer = await startSmtpPeer();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // No SMTP in the environment: the admin points Plinth at the peer from the dashboard.
  t = await startTestApp({ env: { API_BASE_URL: baseUrl } });
  await t.app.listen({ port, host: '127.0.0.1' });
  originalApiKey = t.apiKey;
  for (const name of ['grace', 'alan', 'edsger']) await t.signUp(`${name}@example.com`);
  browser = await openBrowser();
  await signIn(browser, '/auth-settings');
  await browser.page.getByRole('heading', { name: 'Auth settings' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await peer?.close();
  await idp?.close();
});

describe('Auth settings in Chromium', () => {
  it('turns sign-up off: the API then refuses sign-ups', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const signUpSwitch = page.getByLabel('Allow sign-up');
    await signUpSwitch.waitFor();
    expect(await signUpSwitch.isChecked()).toBe(true);
    await checkScreen(browser, 'auth-settings-general');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    await checkScreen(browser, 'auth-settings-general-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await signUpSwitch.click({ force: true });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Auth settings saved.').waitFor();

    expect((await api('GET', '/api/auth/config')).json.disableSignup).toBe(true);
    const refused = await t.request({
      method: 'POST',
      url: '/api/auth/users?client_type=mobile',
      payload: { email: 'late@example.com', password: 'late-comer-123' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json.error).toBe('AUTH_SIGNUP_DISABLED');
  });

  it('adds a redirect URL to the allowlist', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Redirects' }).click();
    await page.getByText('No redirect URLs').waitFor();
    await page
      .getByRole('textbox', { name: 'Redirect URL', exact: true })
      .fill('https://app.example.com/auth/callback');
    await page.getByRole('button', { name: 'Add redirect URL' }).click();
    await page.getByRole('cell', { name: 'https://app.example.com/auth/callback', exact: true }).waitFor();
    expect((await api('GET', '/api/auth/config')).json.allowedRedirectUrls).toEqual([
      'https://app.example.com/auth/callback',
    ]);
    await checkScreen(browser, 'auth-settings-redirects');
  });

  it('adds an OAuth provider whose secret is shown as set, never read back', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'OAuth providers' }).click();
    await page.getByText('No built-in provider configured').waitFor();
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByRole('textbox', { name: 'Provider' })
      .or(dialog.getByRole('combobox', { name: 'Provider' }))
      .click();
    await page.getByRole('option', { name: 'github' }).click();
    await dialog.getByRole('textbox', { name: 'Client ID', exact: true }).fill('gh-client');
    await dialog.getByRole('textbox', { name: 'Client secret', exact: true }).fill('gh-secret-value');
    await dialog.getByRole('button', { name: 'Save provider' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /github/ });
    await row.getByText('Set', { exact: true }).waitFor();
    expect(await page.content()).not.toContain('gh-secret-value');
    const stored = (await api('GET', '/api/auth/oauth/github/config')).json;
    expect(stored).toMatchObject({ clientId: 'gh-client', hasClientSecret: true });
    await checkScreen(browser, 'auth-settings-oauth');
  });

  it('registers a SAML SSO provider from pasted metadata with its domains', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const key = await makeIdpKey('Browser IdP');
    const entityId = 'https://idp.browser.example/entity';
    await page.getByRole('tab', { name: 'SSO (SAML)' }).click();
    await page.getByText('No SSO provider').waitFor();
    await page.getByRole('button', { name: 'Add SSO provider' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Browser IdP');
    await dialog
      .getByRole('textbox', { name: 'Or metadata XML', exact: true })
      .fill(idpMetadataXml(entityId, `${entityId}/sso`, key.certBody));
    await dialog.getByRole('textbox', { name: 'Email domains', exact: true }).fill('browser.test, Corp.Browser.test');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'browser.test, corp.browser.test' }).waitFor();
    const [stored] = (await api('GET', '/api/auth/sso/providers')).json.data;
    expect(stored).toMatchObject({ name: 'Browser IdP', saml: { entityId } });
    await checkScreen(browser, 'auth-settings-sso');
  });

  it('test sign-in goes through a real SAML IdP and back to the outcome, signing nobody in', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    idp = await startSamlIdp({ now: () => t.clock.now() });
    const created = await api('POST', '/api/auth/sso/providers', {
      name: 'Loopback IdP',
      metadataXml: idp.metadataXml,
      domains: ['loopback.test'],
    });
    expect(created.statusCode, created.body).toBe(201);
    idp.actAs({ nameId: 'lb-0001', email: 'tess@loopback.test', name: 'Tess Tester' });
    await page.reload();
    await page.getByRole('tab', { name: 'SSO (SAML)' }).click();
    // The browser goes to the IdP, whose form posts the assertion to Plinth's ACS, which sends
    // it back to the console's page of the outcome.
    await page.getByRole('button', { name: 'Test sign-in through Loopback IdP' }).click();
    await page.waitForURL(/\/dashboard\/auth-settings\/sso\/test\//);
    await page.getByText('Test sign-in passed').waitFor();
    await page.getByRole('table', { name: 'The signed-in user' }).getByText('tess@loopback.test').first().waitFor();
    expect(idp.requests).toHaveLength(1);
    const users = await api('GET', '/api/auth/users?search=loopback.test');
    expect(users.json.data ?? users.json.users ?? []).toEqual([]);
    await checkScreen(browser, 'auth-settings-sso-test');
  });

  it('sets SMTP to the SMTP peer and sends a test email that the peer receives', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'SMTP' }).click();
    await page.getByText(/Emails are sent now through nothing/).waitFor();
    await page.getByLabel('Use these SMTP settings').click({ force: true });
    await page.getByRole('textbox', { name: 'Host', exact: true }).fill('127.0.0.1');
    await page.getByRole('textbox', { name: 'Port', exact: true }).fill(String(peer.port));
    await page.getByRole('textbox', { name: 'Sender email', exact: true }).fill('console@plinth.test');
    await page.getByRole('textbox', { name: 'Sender name', exact: true }).fill('Plinth Console');
    await page.getByRole('button', { name: 'Save SMTP settings' }).click();
    await page.getByText('SMTP settings saved.').waitFor();
    await page.getByText('Emails are sent now through these settings.').waitFor();

    await page.getByRole('textbox', { name: 'Send a test email to', exact: true }).fill('ops@example.com');
    const arrived = peer.nextMessageTo('ops@example.com');
    await page.getByRole('button', { name: 'Send test email' }).click();
    await page.getByText('A test email was accepted for ops@example.com.').waitFor();
    const message = await arrived;
    expect(message.subject).toBe('Plinth test email');
    expect(message.from).toContain('console@plinth.test');
    await checkScreen(browser, 'auth-settings-smtp');
  });

  it('previews an edited template rendered with sample values', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Email templates' }).click();
    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await expect.poll(() => subject.inputValue()).toContain('{{');
    await subject.fill('Welcome {{email}}, your code is {{code}}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Welcome jane.doe@example.com, your code is 123456').waitFor();
    await page.frameLocator('iframe[title="Rendered email preview"]').getByText('123456').waitFor();
    // A preview saves nothing.
    const templates = (await api('GET', '/api/auth/email-templates')).json.data;
    expect(templates.every((x: { isDefault: boolean }) => x.isDefault)).toBe(true);
    await checkScreen(browser, 'auth-settings-templates');
  });
});

describe('Users in Chromium', () => {
  it('creates a user and finds them by search', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
    await checkScreen(browser, 'users');

    await page.getByRole('button', { name: 'Create user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Email', exact: true }).fill(NEW_USER.email);
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill(NEW_USER.password);
    await dialog.getByRole('textbox', { name: 'Name (optional)', exact: true }).fill('Ada');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: NEW_USER.email }).waitFor();
    await page.getByText('No live sessions').waitFor();

    const found = (await api('GET', `/api/auth/users?search=${encodeURIComponent('lovelace')}`)).json;
    expect(found.data).toEqual([expect.objectContaining({ email: NEW_USER.email, emailVerified: true })]);

    await page.getByRole('link', { name: '← All users' }).click();
    await page.getByRole('searchbox', { name: 'Search users', exact: true }).fill('lovelace');
    await page.getByText('Users 1–1 of 1').waitFor();
    const rows = page.getByRole('table', { name: 'Users' }).locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await page.getByRole('link', { name: NEW_USER.email }).click();
    await page.getByRole('heading', { name: NEW_USER.email }).waitFor();
  });

  it('revokes a session of the user: their refresh token then fails', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const signedIn = await t.request({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: NEW_USER,
    });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    await page.reload();
    const sessions = page.getByRole('table', { name: 'Live sessions' });
    await sessions.waitFor();
    expect(await sessions.locator('tbody tr').count()).toBe(1);
    await checkScreen(browser, 'user-detail');

    await sessions.getByRole('button', { name: /^Revoke session started/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Revoke session' }).click();
    await page.getByText('No live sessions').waitFor();

    const refused = await refreshMobile(t, signedIn.json.refreshToken);
    expect(refused.statusCode).toBe(401);
  });

  it('sends the user a password reset email that arrives at the SMTP peer', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const arrived = peer.nextMessageTo(NEW_USER.email);
    await page.getByRole('button', { name: 'Send password reset email' }).click();
    await page.getByText(`A reset email is on its way to ${NEW_USER.email}.`).waitFor();
    const message = await arrived;
    expect(message.subject).toMatch(/^Your password reset code: \d{6}$/);
  });

  it('deletes the user after a confirmation', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Delete user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/cannot be undone/).waitFor();
    await dialog.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    const found = (await api('GET', `/api/auth/users?search=lovelace`)).json;
    expect(found.pagination.total).toBe(0);
  });

  it('turns anonymous sign-in on, then marks anonymous users and filters them', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Auth settings' }).click();
    await page.getByRole('tab', { name: 'Anonymous and linking' }).click();
    const anonymousSwitch = page.getByLabel('Allow anonymous sign-in');
    await anonymousSwitch.waitFor();
    expect(await anonymousSwitch.isChecked()).toBe(false);
    await checkScreen(browser, 'auth-settings-anonymous');
    await anonymousSwitch.click({ force: true });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await api('GET', '/api/auth/config')).json.anonymousSignInsEnabled).toBe(true);

    // Sign-up was turned off above; an anonymous sign-in needs it on.
    await api('PUT', '/api/auth/config', { disableSignup: false });
    const anon = await t.request({ method: 'POST', url: '/api/auth/anonymous?client_type=mobile' });
    expect(anon.statusCode, anon.body).toBe(200);
    await api('PUT', '/api/auth/config', { disableSignup: true });

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
    // The filter (its label comes before the rows' badges) asks for anonymous users only.
    await page.getByText('Anonymous', { exact: true }).first().click();
    await page.getByRole('link', { name: 'Anonymous user' }).waitFor();
    await page.getByText('Users 1–1 of 1').waitFor();
    const rows = page.getByRole('table', { name: 'Users' }).locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await page.getByRole('link', { name: 'Anonymous user' }).click();
    await page.getByRole('heading', { name: 'Anonymous user' }).waitFor();
    await page.getByText('No identities').waitFor();
    await checkScreen(browser, 'user-detail-anonymous');
  });
});

describe('Secrets in Chromium', () => {
  it('creates, updates and deletes a secret, never showing its value', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('heading', { name: 'Secrets', level: 1 }).waitFor();
    // Plinth's own reserved secrets (the access keys) are listed, not editable.
    await page.getByRole('table', { name: 'Secrets' }).getByText('Reserved').first().waitFor();
    await page.getByRole('textbox', { name: 'Secret key', exact: true }).fill(SECRET.toLowerCase());
    await page.getByRole('textbox', { name: 'Secret value', exact: true }).fill('first-value');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await page.getByRole('cell', { name: SECRET, exact: true }).waitFor();
    expect((await api('GET', `/api/secrets/${SECRET}`)).json.value).toBe('first-value');
    expect(await page.content()).not.toContain('first-value');
    await checkScreen(browser, 'secrets');

    await page.getByRole('button', { name: `Update ${SECRET}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'New value', exact: true }).fill('second-value');
    await dialog.getByRole('button', { name: 'Save value' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api('GET', `/api/secrets/${SECRET}`)).json.value).toBe('second-value');

    await confirm(browser, `Delete ${SECRET}`, 'Delete secret');
    await page.getByRole('cell', { name: SECRET, exact: true }).waitFor({ state: 'detached' });
    expect((await api('GET', `/api/secrets/${SECRET}`)).statusCode).toBe(404);
  });

  it('rotates the API key: the new key is shown once and works, the old one works within grace', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    await page.getByRole('textbox', { name: 'Grace period for the old API key (hours)', exact: true }).fill('2');
    await confirm(browser, 'Rotate API key', 'Rotate API key');
    const shown = page.getByRole('textbox', { name: 'New API key' });
    await shown.waitFor();
    const newKey = await shown.inputValue();
    expect(newKey).toMatch(/^ik_/);
    expect(newKey).not.toBe(originalApiKey);
    await page.getByRole('button', { name: 'Copy API key' }).waitFor();
    await checkScreen(browser, 'secrets-rotated');

    const withKey = (key: string) => t.request({ method: 'GET', url: '/api/secrets', headers: { 'x-api-key': key } });
    expect((await withKey(newKey)).statusCode).toBe(200);
    expect((await withKey(originalApiKey)).statusCode).toBe(200);
    t.clock.advance(2 * 3600_000 + 1_000);
    expect((await withKey(originalApiKey)).statusCode).toBe(401);
    expect((await withKey(newKey)).statusCode).toBe(200);
  });

  it('rotates the signing key with no grace: old tokens refused at once, the dashboard carries on', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    // Sign-up is off by now: an existing user signs in.
    const user = (
      await t.request({
        method: 'POST',
        url: '/api/auth/sessions?client_type=mobile',
        payload: { email: 'grace@example.com', password: 'correct-horse-9' },
      })
    ).json;
    const jwks = async () => (await t.request({ method: 'GET', url: '/.well-known/jwks.json' })).json.keys;
    // The clock moved past the dashboard's token in the step before: a reload resumes the session.
    await page.reload();
    await page.getByRole('heading', { name: 'Secrets', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Grace period for the old Signing key (hours)', exact: true }).fill('0');
    await confirm(browser, 'Rotate Signing key', 'Rotate Signing key');
    await page.getByText('New signing key in use').waitFor();
    const [current] = await jwks();
    await page.getByText(`Key id: ${current.kid}`).waitFor();
    expect(await jwks()).toHaveLength(1);
    const asUser = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(user.accessToken),
    });
    expect(asUser.statusCode).toBe(401);
    // The dashboard's own token was signed by the old key: it refreshes and keeps working.
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('heading', { name: 'Secrets', level: 1 }).waitFor();
  });
});

describe('a 390-px-wide phone', () => {
  it('shows users, auth settings and secrets behind the menu button', { timeout: 60_000 }, async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      const { page } = phone;
      await signIn(phone, '/users');
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
      await checkScreen(phone, 'users-phone');
      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await page.getByRole('link', { name: 'Auth settings' }).click();
      await page.getByLabel('Allow sign-up').waitFor();
      await checkScreen(phone, 'auth-settings-phone');
      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await page.getByRole('link', { name: 'Secrets' }).click();
      await page.getByRole('button', { name: 'Rotate API key' }).waitFor();
      await checkScreen(phone, 'secrets-phone');
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
