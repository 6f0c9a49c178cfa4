// The admin's email tools: "send test email" reaches a real SMTP peer through the settings in
// force (and says why when it cannot), and a template preview renders a draft or the template
// in force with sample values, escaped as real emails are.
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import type { SmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, type TestApp } from '../../harness/test-app.js';
import { uniqueEmail, useEmailTestApp } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
// Plinth starts on the log transport: SMTP is set through the admin API as the dashboard does.
useEmailTestApp({ smtp: false, resetConfigAfterEach: false }, (ctx) => ({ t, peer } = ctx));

const admin = () => bearer(t.apiKey);
const sendTest = (to: string) =>
  t.request({ method: 'POST', url: '/api/auth/smtp-config/test', headers: admin(), payload: { to } });
const putSmtp = (payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/auth/smtp-config', headers: admin(), payload });
const preview = (type: string, payload?: Record<string, unknown>) =>
  t.request({ method: 'POST', url: `/api/auth/email-templates/${type}/preview`, headers: admin(), payload });

const smtpAt = (port: number) => ({
  enabled: true,
  host: '127.0.0.1',
  port,
  senderEmail: 'tools@plinth.test',
  senderName: 'Tools',
});

describe('POST /api/auth/smtp-config/test', () => {
  afterEach(async () => {
    expect((await putSmtp({ enabled: false })).statusCode).toBe(200);
  });

  it('is a 503 that says how to configure SMTP while none is configured', async () => {
    const res = await sendTest(uniqueEmail('test'));
    expect(res.statusCode).toBe(503);
    expect(res.json).toMatchObject({
      error: 'EMAIL_PROVIDER_NOT_CONFIGURED',
      nextActions: expect.stringContaining('/api/auth/smtp-config'),
    });
  });

  it('delivers a test email from the configured sender to the SMTP peer', async () => {
    expect((await putSmtp(smtpAt(peer.port))).statusCode).toBe(200);
    const to = uniqueEmail('test');
    const res = await sendTest(to);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({ success: true, message: `A test email was accepted for ${to}.` });
    const message = await peer.nextMessageTo(to);
    expect(message.subject).toBe('Plinth test email');
    expect(message.from).toContain('tools@plinth.test');
    expect(message.html).toContain('the SMTP settings work');
  });

  it('passes on a refusal of the SMTP server as a 502', async () => {
    expect((await putSmtp(smtpAt(peer.port))).statusCode).toBe(200);
    peer.failNext();
    const res = await sendTest(uniqueEmail('test'));
    expect(res.statusCode).toBe(502);
    expect(res.json).toMatchObject({ error: 'EMAIL_SMTP_SEND_FAILED', message: expect.stringContaining('451') });
  });

  it('says the SMTP server could not be reached when nothing listens there', async () => {
    expect((await putSmtp(smtpAt(await freePort()))).statusCode).toBe(200);
    const res = await sendTest(uniqueEmail('test'));
    expect(res.statusCode).toBe(502);
    expect(res.json.error).toBe('EMAIL_SMTP_CONNECTION_FAILED');
  });

  it('rejects a malformed address with a 400 naming the field', async () => {
    const res = await sendTest('not-an-address');
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringContaining('to') });
  });
});

describe('POST /api/auth/email-templates/:type/preview', () => {
  it('renders the default template with sample values when no draft is given', async () => {
    const res = await preview('reset-password-code');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({
      subject: 'Your password reset code: 123456',
      html: expect.stringContaining('jane.doe@example.com'),
      text: expect.stringContaining('The code expires in 15 minutes.'),
    });
  });

  it('renders a draft without saving it, escaping the values into the HTML', async () => {
    const draft = { subject: 'Hi {{email}}', bodyHtml: '<p>Open <a href="{{link}}">here</a> {{ unknown }}</p>' };
    const res = await preview('email-verification-link', draft);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.subject).toBe('Hi jane.doe@example.com');
    expect(res.json.html).toBe(
      `<p>Open <a href="${t.config.apiBaseUrl}/api/auth/email/verify-link?token=sample-token">here</a> {{ unknown }}</p>`,
    );
    const templates = await t.request({ method: 'GET', url: '/api/auth/email-templates', headers: admin() });
    const stored = templates.json.data.find((x: { type: string }) => x.type === 'email-verification-link');
    expect(stored.isDefault).toBe(true);
  });

  it('renders the saved template when one is stored', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/api/auth/email-templates/request-otp',
      headers: admin(),
      payload: { subject: 'Code {{code}} for {{email}}', bodyHtml: '<b>{{code}}</b>' },
    });
    expect(put.statusCode).toBe(200);
    const res = await preview('request-otp', { bodyHtml: '<i>{{code}}</i>' });
    expect(res.json).toEqual({
      subject: 'Code 123456 for jane.doe@example.com',
      html: '<i>123456</i>',
      text: '123456',
    });
  });

  it('refuses an unknown template type with a 400', async () => {
    const res = await preview('welcome');
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });
});
