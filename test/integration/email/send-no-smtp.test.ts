// POST /api/email/send-raw without SMTP: unlike the auth emails, a custom email never goes to the
// log; the caller gets 503 EMAIL_PROVIDER_NOT_CONFIGURED and nothing is counted or recorded. An
// SMTP server that cannot be reached answers 502 EMAIL_SMTP_CONNECTION_FAILED and is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { uniqueEmail } from './email-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const send = () =>
  t.request({
    method: 'POST',
    url: '/api/email/send-raw',
    // The API key: users' sending is off by default (send-users.test.ts), and this is about SMTP.
    headers: bearer(t.apiKey),
    payload: { to: uniqueEmail('nosmtp'), subject: 's', html: '<p>x</p>' },
  });
const log = async () => (await t.request({ method: 'GET', url: '/api/email/sends', headers: bearer(t.apiKey) })).json;
const setSmtp = (payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/auth/smtp-config', headers: bearer(t.apiKey), payload });

describe('no SMTP configured', () => {
  it('answers 503 EMAIL_PROVIDER_NOT_CONFIGURED with the fix, and records nothing', async () => {
    const res = await send();
    expect(res.statusCode).toBe(503);
    expect(res.json).toEqual({
      error: 'EMAIL_PROVIDER_NOT_CONFIGURED',
      message: 'No email provider is configured.',
      statusCode: 503,
      nextActions: expect.stringContaining('PUT /api/auth/smtp-config'),
    });
    expect((await log()).pagination.total).toBe(0);
  });

  it('an unreachable SMTP server: 502 EMAIL_SMTP_CONNECTION_FAILED, recorded as refused', async () => {
    const closedPort = await freePort();
    const put = await setSmtp({ enabled: true, host: '127.0.0.1', port: closedPort, senderEmail: 'x@plinth.test' });
    expect(put.statusCode, put.body).toBe(200);
    try {
      const res = await send();
      expect(res.statusCode).toBe(502);
      expect(res.json).toMatchObject({
        error: 'EMAIL_SMTP_CONNECTION_FAILED',
        message: expect.stringMatching(/^Failed to send email via SMTP: .*ECONNREFUSED/),
        nextActions: expect.any(String),
      });
      const { data } = await log();
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({
        status: 'refused',
        acceptedCount: 0,
        error: expect.stringContaining('ECONNREFUSED'),
      });
    } finally {
      await setSmtp({ enabled: false });
    }
  });
});
