// POST /api/email/send-raw against a real SMTP peer: what reaches the inbox (recipients, sender,
// subject, the HTML as given), who may send, the per-message limits and the hourly count (moved
// with the injected clock), an SMTP refusal, the send log and the admin's settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpPeer, startSmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { uniqueEmail, verifiedUser } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({ env: peer.env });
  // Users may send once the admin turns it on (send-users.test.ts covers the default and the rules).
  await setSettings({ usersMaySend: true });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

type Headers = Record<string, string>;
const send = (headers: Headers, payload: unknown) =>
  t.request({ method: 'POST', url: '/api/email/send-raw', headers, payload: payload as Record<string, unknown> });
const asUser = async () => bearer((await verifiedUser(t, peer)).token);
const admin = () => bearer(t.apiKey);

const setSettings = async (payload: Record<string, number | boolean>) => {
  const res = await t.request({ method: 'PUT', url: '/api/email/send-settings', headers: admin(), payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json;
};
const DEFAULTS = { maxRecipients: 50, maxBodyBytes: 256 * 1024, maxPerHour: 100 };

/** The newest log records (the log is newest first). */
const latestRecords = async (limit = 100) => {
  const res = await t.request({ method: 'GET', url: `/api/email/sends?limit=${limit}`, headers: admin() });
  expect(res.statusCode, res.body).toBe(200);
  return res.json.data as Record<string, any>[];
};
const subjectOf = async (headers: Headers) => {
  const res = await t.request({ method: 'GET', url: '/api/auth/sessions/current', headers });
  return res.json.user.id as string;
};

describe('sending', () => {
  it('delivers the HTML as given to every recipient, from the configured sender, and records the send', async () => {
    const user = await asUser();
    const to = uniqueEmail('to');
    const cc = uniqueEmail('cc');
    const bcc = uniqueEmail('bcc');
    const replyTo = uniqueEmail('reply');
    const html =
      '<h1 style="color:#c00">Hello, Zoë</h1>\n<p>Your order <b>#42</b> shipped. <a href="https://example.com/o?a=1&b=2">Track</a></p>';
    const res = await send(user, {
      to: ` ${to.toUpperCase()} `,
      cc: [cc],
      bcc,
      subject: '  Your order shipped  ',
      html,
      from: 'Shop',
      replyTo,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({});

    const message = await peer.nextMessageTo(to);
    expect(message.to.sort()).toEqual([to, cc, bcc].sort());
    expect(message.subject).toBe('Your order shipped');
    // Line ends travel as CRLF in SMTP; the content is otherwise byte for byte what was sent.
    expect(message.html.replaceAll('\r\n', '\n')).toBe(html);
    expect(message.text).toBe('');
    // The sender is the configured one: the from field is a display name the SMTP provider ignores.
    expect(message.from).toBe('Plinth Test <no-reply@plinth.test>');
    expect(message.raw).toMatch(new RegExp(`^reply-to:\\s*${replyTo}`, 'im'));
    expect(message.raw).toMatch(new RegExp(`^cc:\\s*${cc}`, 'im'));
    expect(message.raw).not.toMatch(/^bcc:/im);

    const [record] = await latestRecords(1);
    expect(record).toEqual({
      id: expect.any(String),
      sentAt: t.clock.now().toISOString(),
      sender: { kind: 'user', id: await subjectOf(user) },
      recipientCount: 3,
      acceptedCount: 3,
      status: 'accepted',
      error: null,
    });
  });

  it('a line break in the subject cannot add a header or a recipient', async () => {
    const to = uniqueEmail('inject');
    const evil = uniqueEmail('evil');
    const res = await send(admin(), { to, subject: `Hi\r\nBcc: ${evil}\r\nX-Injected: 1`, html: '<p>x</p>' });
    expect(res.statusCode, res.body).toBe(200);
    const message = await peer.nextMessageTo(to);
    expect(message.to).toEqual([to]);
    expect(message.raw).not.toMatch(/^x-injected:/im);
    expect(message.raw).not.toMatch(/^bcc:/im);
    expect(peer.pendingFor(evil)).toEqual([]);
  });

  it('the API key and an admin token may send; the log names them', async () => {
    const viaKey = uniqueEmail('key');
    expect((await send(admin(), { to: [viaKey], subject: 'k', html: '<p>k</p>' })).statusCode).toBe(200);
    await peer.nextMessageTo(viaKey);
    expect((await latestRecords(1))[0]!.sender).toEqual({ kind: 'api-key', id: 'api-key' });

    const adminToken = bearer(await t.adminToken());
    const viaToken = uniqueEmail('admin');
    expect((await send(adminToken, { to: viaToken, subject: 'a', html: '<p>a</p>' })).statusCode).toBe(200);
    await peer.nextMessageTo(viaToken);
    expect((await latestRecords(1))[0]!.sender).toMatchObject({ kind: 'admin', id: expect.any(String) });
  });
});

describe('who may send', () => {
  it('the anon key is refused with 401, before the body is even read', async () => {
    for (const payload of [{ to: uniqueEmail('anon'), subject: 's', html: '<p>x</p>' }, { to: 'not an address' }]) {
      const res = await send(bearer(t.anonKey), payload);
      expect(res.statusCode).toBe(401);
      expect(res.json).toMatchObject({
        error: 'UNAUTHORIZED',
        message: 'Sending emails requires an authenticated user.',
        statusCode: 401,
        nextActions: expect.stringContaining('API key'),
      });
    }
  });

  it('no credential: 401', async () => {
    const res = await send({}, { to: uniqueEmail('none'), subject: 's', html: '<p>x</p>' });
    expect(res.statusCode).toBe(401);
    expect(res.json.error).toBe('UNAUTHORIZED');
  });
});

describe('bad input: 400 with a hint, nothing sent or recorded', () => {
  const ok = { to: 'someone@example.com', subject: 'Hi', html: '<p>x</p>' };
  const cases: [string, Record<string, unknown>, string][] = [
    ['no recipients', { subject: 'Hi', html: '<p>x</p>' }, 'to'],
    ['an empty recipient list', { ...ok, to: [] }, 'to'],
    ['a bad address', { ...ok, to: ['good@example.com', 'not-an-address'] }, 'to'],
    ['a bad cc address', { ...ok, cc: 'nope' }, 'cc'],
    ['a bad replyTo', { ...ok, replyTo: 'nope' }, 'replyTo'],
    ['a blank subject', { ...ok, subject: '   ' }, 'subject'],
    ['blank HTML', { ...ok, html: ' \n ' }, 'html'],
  ];

  it.each(cases)('%s', async (_label, payload, field) => {
    const before = (await latestRecords(1))[0]?.id;
    const res = await send(await asUser(), payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      statusCode: 400,
      message: expect.stringContaining(field),
      nextActions: expect.any(String),
    });
    expect((await latestRecords(1))[0]?.id).toBe(before);
  });
});

describe('limits', () => {
  it('more recipients than allowed (to, cc and bcc together): 400 naming the limit', async () => {
    const to = Array.from({ length: 30 }, () => uniqueEmail('many'));
    const cc = Array.from({ length: 21 }, () => uniqueEmail('many'));
    const res = await send(await asUser(), { to, cc, subject: 's', html: '<p>x</p>' });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: 'The message has 51 recipients (to, cc and bcc together); at most 50 are allowed.',
      nextActions: expect.stringContaining('maxRecipients'),
    });
    expect(peer.pendingFor(to[0]!)).toEqual([]);
  });

  it('HTML over the size limit: 400; at the limit it is sent', async () => {
    const user = await asUser();
    const over = `<p>${'é'.repeat(DEFAULTS.maxBodyBytes / 2)}</p>`;
    const res = await send(user, { to: uniqueEmail('big'), subject: 's', html: over });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: `The HTML is ${Buffer.byteLength(over)} bytes; at most ${DEFAULTS.maxBodyBytes} are allowed.`,
      nextActions: expect.stringContaining('maxBodyBytes'),
    });

    const exact = `<p>${'x'.repeat(DEFAULTS.maxBodyBytes - 7)}</p>`;
    const to = uniqueEmail('exact');
    expect((await send(user, { to, subject: 's', html: exact })).statusCode).toBe(200);
    expect((await peer.nextMessageTo(to)).html).toBe(exact);
  });

  it('the admin changes the limits at run time', async () => {
    const changed = await setSettings({ maxRecipients: 2, maxBodyBytes: 100 });
    expect(changed).toMatchObject({ maxRecipients: 2, maxBodyBytes: 100, maxPerHour: 100, custom: true });
    expect(changed.updatedAt).toBe(t.clock.now().toISOString());
    try {
      const user = await asUser();
      const three = await send(user, {
        to: [uniqueEmail('a'), uniqueEmail('b')],
        bcc: uniqueEmail('c'),
        subject: 's',
        html: 'x',
      });
      expect(three.statusCode).toBe(400);
      expect(three.json.message).toContain('at most 2');
      expect((await send(user, { to: uniqueEmail('d'), subject: 's', html: 'y'.repeat(101) })).statusCode).toBe(400);
    } finally {
      await setSettings(DEFAULTS);
    }
  });

  it('rejects settings outside their bounds', async () => {
    for (const payload of [{ maxRecipients: 0 }, { maxPerHour: -1 }, { maxBodyBytes: 1.5 }, { unknown: 1 }]) {
      const res = await t.request({ method: 'PUT', url: '/api/email/send-settings', headers: admin(), payload });
      expect(res.statusCode).toBe(400);
    }
  });
});

describe('hourly count per sender', () => {
  it('past maxPerHour: 429 with Retry-After until the hour ends; other senders are not affected', async () => {
    await setSettings({ maxPerHour: 3 });
    try {
      const account = await verifiedUser(t, peer);
      const user = bearer(account.token);
      for (let i = 0; i < 3; i++) {
        expect((await send(user, { to: uniqueEmail('hour'), subject: `${i}`, html: '<p>x</p>' })).statusCode).toBe(200);
      }
      t.clock.advance(10 * 60 * 1000);
      const refusedTo = uniqueEmail('refused');
      const refused = await send(user, { to: refusedTo, subject: 'four', html: '<p>x</p>' });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe(String(50 * 60));
      expect(refused.json).toMatchObject({
        error: 'TOO_MANY_REQUESTS',
        message: 'Too many emails sent in this hour. Try again in 3000 seconds.',
        nextActions: 'Retry after 3000 seconds.',
      });
      expect(peer.pendingFor(refusedTo)).toEqual([]);

      const other = await asUser();
      expect((await send(other, { to: uniqueEmail('other'), subject: 'o', html: '<p>o</p>' })).statusCode).toBe(200);

      t.clock.advance(50 * 60 * 1000);
      // The access token has expired meanwhile: the same user signs in again.
      const signIn = await t.request({
        method: 'POST',
        url: '/api/auth/sessions?client_type=mobile',
        payload: { email: account.email, password: account.password },
      });
      const again = bearer(signIn.json.accessToken);
      const later = uniqueEmail('later');
      expect((await send(again, { to: later, subject: 'again', html: '<p>x</p>' })).statusCode).toBe(200);
      await peer.nextMessageTo(later);
    } finally {
      await setSettings(DEFAULTS);
    }
  });
});

describe('SMTP refuses the message', () => {
  it('answers 502 with the reason, records the send as refused, and the next send goes through', async () => {
    const user = await asUser();
    peer.failNext();
    const to = uniqueEmail('refused');
    const res = await send(user, { to, cc: uniqueEmail('refused-cc'), subject: 's', html: '<p>x</p>' });
    expect(res.statusCode).toBe(502);
    expect(res.json).toMatchObject({
      error: 'EMAIL_SMTP_SEND_FAILED',
      statusCode: 502,
      message: expect.stringMatching(/^Failed to send email via SMTP: .*451 Mailbox temporarily unavailable/),
      nextActions: expect.any(String),
    });
    expect(peer.pendingFor(to)).toEqual([]);

    const [record] = await latestRecords(1);
    expect(record).toMatchObject({
      sender: { kind: 'user', id: await subjectOf(user) },
      recipientCount: 2,
      acceptedCount: 0,
      status: 'refused',
      error: expect.stringContaining('451'),
    });

    expect((await send(user, { to, subject: 'retry', html: '<p>x</p>' })).statusCode).toBe(200);
    expect((await peer.nextMessageTo(to)).subject).toBe('retry');
  });
});

describe('the send log', () => {
  it('is paginated, newest first, with the total', async () => {
    const all = await latestRecords(100);
    expect(all.length).toBeGreaterThan(3);
    const res = await t.request({ method: 'GET', url: '/api/email/sends?limit=2&offset=1', headers: admin() });
    expect(res.statusCode).toBe(200);
    expect(res.json.pagination).toEqual({ limit: 2, offset: 1, total: all.length });
    expect(res.json.data).toEqual(all.slice(1, 3));
    const times = all.map((r) => r.sentAt as string);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('is for the admin only', async () => {
    const res = await t.request({ method: 'GET', url: '/api/email/sends', headers: await asUser() });
    expect(res.statusCode).toBe(403);
  });
});
