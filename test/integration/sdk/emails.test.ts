// The official JavaScript client's emails.send (POST /api/email/send-raw) against a listening
// Plinth whose SMTP is the loopback peer: a signed-in user and an admin client (API key) send,
// the anon key is refused, and bad input, the hourly count and an SMTP refusal come back as the
// client's { data: null, error } with the server's code, status and hint.
import { randomBytes } from 'node:crypto';
import { createAdminClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFrom } from '../../harness/smtp-peer.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
const unique = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

/**
 * A client signed in as a new user who verified their address with the emailed code (users need
 * one to send); server mode: the access token rides in the header.
 */
async function signedIn(): Promise<InsForgeClient> {
  const client = s.client({ isServerMode: true });
  const email = unique('sdk-mail');
  expect((await client.auth.signUp({ email, password: 'sdk-password-1' })).error).toBeNull();
  expect((await client.auth.resendVerificationEmail({ email })).error).toBeNull();
  const otp = codeFrom(await s.smtp!.nextMessageTo(email));
  expect((await client.auth.verifyEmail({ email, otp })).error).toBeNull();
  return client;
}

beforeAll(async () => {
  s = await startSdkApp({ smtp: true });
  // Users' sending is off until the admin turns it on.
  const on = await s.t.request({
    method: 'PUT',
    url: '/api/email/send-settings',
    headers: { 'x-api-key': s.t.apiKey },
    payload: { usersMaySend: true },
  });
  expect(on.statusCode).toBe(200);
});
afterAll(() => s.close());

describe('emails.send', () => {
  it('a signed-in user sends HTML to several recipients; it arrives as given', async () => {
    const client = await signedIn();
    const to = [unique('to1'), unique('to2')];
    const html = '<table><tr><td>Invoice <strong>#7</strong> — 12,00 €</td></tr></table>';
    const { data, error } = await client.emails.send({ to, subject: 'Your invoice', html, replyTo: unique('reply') });
    expect(error).toBeNull();
    expect(data).toEqual({});
    const message = await s.smtp!.nextMessageTo(to[0]!);
    expect(message.to.sort()).toEqual([...to].sort());
    expect(message.subject).toBe('Your invoice');
    expect(message.html).toBe(html);
    expect(message.from).toContain('no-reply@plinth.test');
  });

  it('an admin client (API key) sends', async () => {
    const admin = createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey, retryCount: 0 });
    const to = unique('admin');
    const { error } = await admin.emails.send({ to, subject: 'From the server', html: '<p>hi</p>' });
    expect(error).toBeNull();
    expect((await s.smtp!.nextMessageTo(to)).subject).toBe('From the server');
  });

  it('the anon key (no one signed in) is refused with 401', async () => {
    const to = unique('anon');
    const { data, error } = await s.client().emails.send({ to, subject: 's', html: '<p>x</p>' });
    expect(data).toBeNull();
    expect(error).toMatchObject({
      statusCode: 401,
      error: 'UNAUTHORIZED',
      message: 'Sending emails requires an authenticated user.',
      nextActions: expect.any(String),
    });
    expect(s.smtp!.pendingFor(to)).toEqual([]);
  });

  it('bad input comes back as a 400 error with a hint', async () => {
    const client = await signedIn();
    const { data, error } = await client.emails.send({ to: ['not-an-address'], subject: 's', html: '<p>x</p>' });
    expect(data).toBeNull();
    expect(error).toMatchObject({
      statusCode: 400,
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('to.0'),
      nextActions: expect.any(String),
    });
  });

  it('past the hourly count: 429 until the clock moves past the hour', async () => {
    const setHourly = (maxPerHour: number) =>
      s.t.request({
        method: 'PUT',
        url: '/api/email/send-settings',
        headers: { 'x-api-key': s.t.apiKey },
        payload: { maxPerHour },
      });
    expect((await setHourly(1)).statusCode).toBe(200);
    try {
      const admin = createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey, retryCount: 0 });
      // The API key sent once in the test above: its window is already full.
      const { error } = await admin.emails.send({ to: unique('hourly'), subject: 's', html: '<p>x</p>' });
      expect(error).toMatchObject({ statusCode: 429, error: 'TOO_MANY_REQUESTS', nextActions: expect.any(String) });
      s.t.clock.advance(60 * 60 * 1000);
      const later = unique('later');
      expect((await admin.emails.send({ to: later, subject: 'later', html: '<p>x</p>' })).error).toBeNull();
      await s.smtp!.nextMessageTo(later);
    } finally {
      await setHourly(100);
    }
  });

  it('an SMTP refusal comes back as a 502 error (a POST: the client does not retry it)', async () => {
    const admin = createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey, retryCount: 3 });
    s.smtp!.failNext();
    const to = unique('refused');
    const { data, error } = await admin.emails.send({ to, subject: 's', html: '<p>x</p>' });
    expect(data).toBeNull();
    expect(error).toMatchObject({ statusCode: 502, error: 'EMAIL_SMTP_SEND_FAILED', nextActions: expect.any(String) });
    expect(s.smtp!.pendingFor(to)).toEqual([]);
    const log = await s.t.request({
      method: 'GET',
      url: '/api/email/sends?limit=1',
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(log.json.data[0]).toMatchObject({ status: 'refused', sender: { kind: 'api-key' } });
  });
});
