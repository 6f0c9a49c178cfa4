// Passkeys in a real browser: Chromium's virtual authenticator (CDP WebAuthn: ctap2, internal,
// resident keys, user verification) answers navigator.credentials.create/get on a test page that
// @simplewebauthn/browser drives. The page is served at http://passkeys.localhost:<port> (the configured
// WebAuthn origin, RP id "passkeys.localhost") and forwards /api/* to Plinth, so page and API share an
// origin. Covers registration, discoverable sign-in, a cloned authenticator (counter reset), a
// removed passkey, and the same page on an origin outside WEBAUTHN_ORIGINS (evil.passkeys.localhost).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser } from './browser.js';

// The library's own browser bundle (not in its package exports, so read by path).
const browserLib = readFileSync(
  new URL('../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js', import.meta.url),
  'utf8',
);

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Passkeys</title>
<script src="/simplewebauthn-browser.js"></script></head><body><h1>Passkeys</h1></body></html>`;

let t: TestApp;
let pages: Server;
let port = 0;
let browser: BrowserSession;
let cdp: CDPSession;
let authenticatorId = '';
let user: { user: { id: string }; accessToken: string; email: string };

/** Serves the test page and the library, and forwards /api/* to the app (inject). */
function startPageServer(): Promise<Server> {
  const server = createServer(async (req, res) => {
    const url = req.url ?? '/';
    if (url === '/simplewebauthn-browser.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(browserLib);
      return;
    }
    if (!url.startsWith('/api/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await t.app.inject({
      method: req.method as 'GET',
      url,
      headers: req.headers,
      payload: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.statusCode, answer.headers as Record<string, string>).end(answer.rawPayload);
  });
  return new Promise((resolve) => server.listen(0, () => resolve(server)));
}

beforeAll(async () => {
  pages = await startPageServer();
  port = (pages.address() as AddressInfo).port;
  t = await startTestApp({
    env: {
      WEBAUTHN_RP_ID: 'passkeys.localhost',
      WEBAUTHN_RP_NAME: 'Plinth test',
      WEBAUTHN_ORIGINS: `http://passkeys.localhost:${port}`,
    },
  });
  user = await t.signUp();
  browser = await openBrowser();
  cdp = await browser.page.context().newCDPSession(browser.page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
  await browser.page.goto(`http://passkeys.localhost:${port}/`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await t?.close();
});

interface Answer {
  status: number;
  body: any;
  error?: string;
}

/** In the page: options from the API, the browser's passkey prompt, the answer posted back. */
function registerInPage(token: string): Promise<Answer> {
  return browser.page.evaluate(async (accessToken) => {
    const swa = (globalThis as any).SimpleWebAuthnBrowser;
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const options = await fetch('/api/auth/passkeys/registration-options', {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Virtual authenticator' }),
    }).then((r) => r.json());
    const credential = await swa.startRegistration({ optionsJSON: options.options });
    const res = await fetch('/api/auth/passkeys', {
      method: 'POST',
      headers,
      body: JSON.stringify({ challengeId: options.challengeId, credential }),
    });
    return { status: res.status, body: await res.json() };
  }, token);
}

function signInInPage(): Promise<Answer> {
  return browser.page.evaluate(async () => {
    const swa = (globalThis as any).SimpleWebAuthnBrowser;
    const options = await fetch('/api/auth/passkeys/sign-in-options', { method: 'POST' }).then((r) => r.json());
    let credential: unknown;
    try {
      credential = await swa.startAuthentication({ optionsJSON: options.options });
    } catch (err) {
      return { status: 0, body: null, error: String(err) };
    }
    const res = await fetch('/api/auth/passkeys/sign-in?client_type=mobile', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ challengeId: options.challengeId, credential }),
    });
    return { status: res.status, body: await res.json() };
  });
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('passkeys in Chromium with a virtual authenticator', () => {
  let passkeyId = '';

  it('registers a discoverable passkey while signed in', async () => {
    const res = await registerInPage(user.accessToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Virtual authenticator', transports: ['internal'] });
    passkeyId = res.body.id;
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'passkeys.localhost' });
    expect(Buffer.from(credentials[0]!.userHandle!, 'base64').toString('utf8')).toBe(user.user.id);
  });

  it('signs in with the passkey, no email typed: a session of the user with amr webauthn', async () => {
    const res = await signInInPage();
    expect(res.status, JSON.stringify(res)).toBe(200);
    expect(res.body.user.id).toBe(user.user.id);
    expect(claimsOf(res.body.accessToken)).toMatchObject({ sub: user.user.id, amr: [{ method: 'webauthn' }] });
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(res.body.accessToken),
    });
    expect(me.json.user.id).toBe(user.user.id);
  });

  it('a cloned authenticator (its signature counter behind the stored one) is refused', async () => {
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const original = credentials[0]!;
    expect(original.signCount).toBeGreaterThan(0);
    // The same private key on an authenticator whose counter starts over: what a clone looks like.
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: original.credentialId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...original, signCount: 0 } });
    const res = await signInInPage();
    expect(res.status, JSON.stringify(res)).toBe(401);
    expect(res.body.message).toMatch(/cloned/);
    // Put the counter ahead again: the real authenticator still works.
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: original.credentialId });
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: { ...original, signCount: original.signCount + 10 },
    });
    expect((await signInInPage()).status).toBe(200);
  });

  it('the same page on an origin outside WEBAUTHN_ORIGINS is refused by the server', async () => {
    await browser.page.goto(`http://evil.passkeys.localhost:${port}/`);
    const res = await signInInPage();
    await browser.page.goto(`http://passkeys.localhost:${port}/`);
    // The browser signs for RP id "passkeys.localhost" from its subdomain (a sibling app, a phishing
    // page on a taken-over subdomain); the server refuses the origin.
    expect(res.status, JSON.stringify(res)).toBe(401);
    expect(res.body.message).toMatch(/origin/i);
  });

  it('a removed passkey no longer signs in', async () => {
    // Removing a passkey needs aal2: the session the passkey itself opened has it.
    const signedIn = await signInInPage();
    expect(claimsOf(signedIn.body.accessToken).aal).toBe('aal2');
    const removed = await t.request({
      method: 'DELETE',
      url: `/api/auth/passkeys/${passkeyId}`,
      headers: bearer(signedIn.body.accessToken),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const res = await signInInPage();
    expect(res.status, JSON.stringify(res)).toBe(401);
    expect(res.body.message).toMatch(/not registered/);
  });
});
