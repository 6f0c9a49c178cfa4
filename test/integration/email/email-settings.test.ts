// The admin's email settings: SMTP configuration (environment, then the admin API winning while
// enabled; the password is write-only) and the editable templates, checked through the emails a
// real SMTP peer receives.
import { afterEach, describe, expect, it } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, type TestApp } from '../../harness/test-app.js';
import { type EmailApi, uniqueEmail, useEmailTestApp } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: false }, (ctx) => ({ t, peer, api } = ctx));

const TEMPLATE_TYPES = [
  'email-verification-code',
  'email-verification-link',
  'request-otp',
  'reset-password-code',
  'reset-password-link',
];

type Headers = Record<string, string>;
const admin = (): Headers => bearer(t.apiKey);
const getSmtp = (headers: Headers = admin()) => t.request({ method: 'GET', url: '/api/auth/smtp-config', headers });
const putSmtp = (payload: Record<string, unknown>, headers: Headers = admin()) =>
  t.request({ method: 'PUT', url: '/api/auth/smtp-config', headers, payload });
const getTemplates = (headers: Headers = admin()) =>
  t.request({ method: 'GET', url: '/api/auth/email-templates', headers });
const putTemplate = (type: string, payload: Record<string, unknown>, headers: Headers = admin()) =>
  t.request({ method: 'PUT', url: `/api/auth/email-templates/${type}`, headers, payload });

/** Sends a sign-in code to a fresh address and returns the email that arrived. */
async function sendAndReceive(email = uniqueEmail('mail')) {
  const res = await api.sendOtp(email);
  expect(res.statusCode, res.body).toBe(202);
  return { email, message: await peer.nextMessageTo(email) };
}

describe('SMTP configuration', () => {
  // The API settings are one row: every test ends on the environment's settings again.
  afterEach(async () => {
    expect((await putSmtp({ enabled: false, password: null })).statusCode).toBe(200);
  });

  const apiSettings = () => ({
    enabled: true,
    host: '127.0.0.1',
    port: peer.port,
    username: 'mailer',
    senderEmail: 'admin-set@plinth.test',
    senderName: 'Admin Set',
  });

  it('GET shows the environment settings without any password', async () => {
    const res = await getSmtp();
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      enabled: true,
      host: '127.0.0.1',
      port: peer.port,
      secure: false,
      username: '',
      hasPassword: false,
      senderEmail: 'no-reply@plinth.test',
      senderName: 'Plinth Test',
      source: 'environment',
      updatedAt: null,
    });
    const { message } = await sendAndReceive();
    expect(message.from).toContain('no-reply@plinth.test');
    expect(message.auth).toBeUndefined();
  });

  it('PUT stores settings that win over the environment; the password is used but never returned', async () => {
    const res = await putSmtp({ ...apiSettings(), password: 's3cret-pw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      ...apiSettings(),
      hasPassword: true,
      source: 'api',
      updatedAt: expect.any(String),
    });
    expect(res.json).not.toHaveProperty('password');
    expect(res.body).not.toContain('s3cret-pw');

    const read = await getSmtp();
    expect(read.json).toEqual(res.json);
    expect(read.body).not.toContain('s3cret-pw');

    const { message } = await sendAndReceive();
    expect(message.from).toContain('admin-set@plinth.test');
    expect(message.from).toContain('Admin Set');
    expect(message.auth).toEqual({ username: 'mailer', password: 's3cret-pw' });
  });

  it('an omitted password keeps the stored one; null removes it', async () => {
    expect((await putSmtp({ ...apiSettings(), password: 'kept-pw' })).statusCode).toBe(200);
    const kept = await putSmtp({ ...apiSettings(), senderName: 'Renamed' });
    expect(kept.json).toMatchObject({ hasPassword: true, senderName: 'Renamed' });
    expect((await sendAndReceive()).message.auth).toEqual({ username: 'mailer', password: 'kept-pw' });

    const removed = await putSmtp({ ...apiSettings(), username: '', password: null });
    expect(removed.json).toMatchObject({ hasPassword: false, username: '' });
    expect((await sendAndReceive()).message.auth).toBeUndefined();
  });

  it('disabling the API settings falls back to the environment', async () => {
    expect((await putSmtp(apiSettings())).statusCode).toBe(200);
    const off = await putSmtp({ enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json).toMatchObject({ source: 'environment', senderEmail: 'no-reply@plinth.test' });
    expect((await sendAndReceive()).message.from).toContain('no-reply@plinth.test');
  });

  it.each([
    ['enabled without a host', { enabled: true, senderEmail: 'a@b.test' }],
    ['enabled without a sender', { enabled: true, host: '127.0.0.1' }],
    ['a port out of range', { enabled: true, host: '127.0.0.1', port: 70000, senderEmail: 'a@b.test' }],
    ['a sender that is not an email', { enabled: true, host: '127.0.0.1', senderEmail: 'nope' }],
    ['no enabled flag', { host: '127.0.0.1', senderEmail: 'a@b.test' }],
  ])('PUT with %s: 400 and nothing changes', async (_label, payload) => {
    const res = await putSmtp(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect((await getSmtp()).json.source).toBe('environment');
  });
});

describe('email templates', () => {
  it('GET lists the five types, each with its default', async () => {
    const res = await getTemplates();
    expect(res.statusCode).toBe(200);
    expect(res.json.data.map((d: { type: string }) => d.type).sort()).toEqual([...TEMPLATE_TYPES].sort());
    for (const template of res.json.data) {
      expect(template).toEqual({
        type: expect.any(String),
        subject: expect.stringMatching(/\S/),
        bodyHtml: expect.stringMatching(/\S/),
        isDefault: true,
      });
      expect(template.bodyHtml).toMatch(template.type.endsWith('-link') ? /\{\{\s*link\s*\}\}/ : /\{\{\s*code\s*\}\}/);
    }
  });

  it('a replaced template is used by the next email, with {{code}} filled in and the email HTML-escaped', async () => {
    const custom = {
      subject: 'Code {{code}} for {{email}}',
      bodyHtml: '<p>Hi {{email}}!</p><p>Your code: <b>{{code}}</b> ({{expiresInMinutes}} min)</p>',
    };
    const put = await putTemplate('request-otp', custom);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json).toEqual({ type: 'request-otp', ...custom, isDefault: false });
    const listed = (await getTemplates()).json.data.find((d: { type: string }) => d.type === 'request-otp');
    expect(listed).toEqual({ type: 'request-otp', ...custom, isDefault: false });

    const email = `o'hara-${uniqueEmail('tpl')}`;
    const { message } = await sendAndReceive(email);
    const code = codeFrom(message);
    expect(message.subject).toBe(`Code ${code} for ${email}`);
    expect(message.html).toBe(`<p>Hi ${email.replace("'", '&#39;')}!</p><p>Your code: <b>${code}</b> (5 min)</p>`);
    expect(message.text).toContain(`Hi ${email}!`);
    expect((await api.otpSignIn(email, code)).statusCode).toBe(200);

    // The other types keep their defaults.
    const { email: other } = await t.signUp(uniqueEmail('other'));
    expect((await api.sendReset(other)).statusCode).toBe(202);
    expect((await peer.nextMessageTo(other)).subject).toMatch(/^Your password reset code: \d{6}$/);
  });

  it.each([
    ['an unknown type', 'welcome-email', { subject: 's', bodyHtml: 'b' }],
    ['an empty subject', 'request-otp', { subject: '  ', bodyHtml: '<p>{{code}}</p>' }],
    ['no body', 'request-otp', { subject: 'Code {{code}}' }],
  ])('PUT with %s: 400', async (_label, type, payload) => {
    const res = await putTemplate(type, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });
});

describe('admin only', () => {
  const calls: [string, (headers: Headers) => ReturnType<TestApp['request']>][] = [
    ['GET /api/auth/smtp-config', (h) => getSmtp(h)],
    ['PUT /api/auth/smtp-config', (h) => putSmtp({ enabled: false }, h)],
    ['GET /api/auth/email-templates', (h) => getTemplates(h)],
    [
      'PUT /api/auth/email-templates/request-otp',
      (h) => putTemplate('request-otp', { subject: 'x', bodyHtml: 'y' }, h),
    ],
  ];

  it.each(calls)('%s: a user gets 403, an anonymous caller 401, and nothing changes', async (_label, call) => {
    const user = await t.signUp(uniqueEmail('user'));
    const asUser = await call(bearer(user.accessToken));
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    expect(asUser.body).not.toContain('Plinth Test');

    const anonymous = await call({});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json.error).toBe('UNAUTHORIZED');

    expect((await getSmtp()).json.source).toBe('environment');
    const otp = (await getTemplates()).json.data.find((d: { type: string }) => d.type === 'request-otp');
    expect(otp.subject).not.toBe('x');
  });

  it('an admin access token (not only the API key) is accepted', async () => {
    const res = await getSmtp(bearer(await t.adminToken()));
    expect(res.statusCode).toBe(200);
  });
});
