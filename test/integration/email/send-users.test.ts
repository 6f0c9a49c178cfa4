// Users sending custom emails (POST /api/email/send-raw) against a real SMTP peer: off until the
// admin turns it on, only from a verified address, under one hourly cap for all users together,
// and only to the recipients the admin allows. Every refusal says why and what to do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpPeer, startSmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { uniqueEmail, verifiedUser as verifiedUserOf } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({ env: peer.env });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

const send = (token: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/email/send-raw', headers: bearer(token), payload });
const setSettings = async (payload: Record<string, unknown>) => {
  const res = await t.request({ method: 'PUT', url: '/api/email/send-settings', headers: bearer(t.apiKey), payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json;
};
const message = (to: string | string[]) => ({ to, subject: 'hello', html: '<p>hello</p>' });

const verifiedUser = () => verifiedUserOf(t, peer);

describe('user sending', () => {
  it('is off by default: 403 saying the admin must turn it on; the API key still sends', async () => {
    const settings = await t.request({ method: 'GET', url: '/api/email/send-settings', headers: bearer(t.apiKey) });
    expect(settings.json).toEqual({
      maxRecipients: 50,
      maxBodyBytes: 256 * 1024,
      maxPerHour: 100,
      usersMaySend: false,
      usersMaxPerHour: 100,
      userRecipients: 'any',
      recipientAllowList: [],
      custom: false,
      updatedAt: null,
    });
    const { token } = await verifiedUser();
    const to = uniqueEmail('stranger');
    const refused = await send(token, message(to));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({
      error: 'INSUFFICIENT_PERMISSIONS',
      message: 'Sending emails is turned off for users of this project.',
      nextActions: expect.stringContaining('usersMaySend'),
    });
    expect(peer.pendingFor(to)).toEqual([]);
    const viaKey = await t.request({
      method: 'POST',
      url: '/api/email/send-raw',
      headers: bearer(t.apiKey),
      payload: message(to),
    });
    expect(viaKey.statusCode).toBe(200);
    await peer.nextMessageTo(to);
  });

  it('needs a verified address: an unverified account is refused, then sends once verified', async () => {
    await setSettings({ usersMaySend: true });
    const fresh = await t.signUp();
    const to = uniqueEmail('target');
    const refused = await send(fresh.accessToken, message(to));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({
      message: 'Verify your email address before sending emails.',
      nextActions: expect.stringContaining('/api/auth/email/send-verification'),
    });
    expect(peer.pendingFor(to)).toEqual([]);
    const { token } = await verifiedUser();
    expect((await send(token, message(to))).statusCode).toBe(200);
    await peer.nextMessageTo(to);
  });

  it('one hourly cap for all users together: new accounts do not get a new budget', async () => {
    await setSettings({ usersMaySend: true, usersMaxPerHour: 3, maxPerHour: 100 });
    t.clock.advance(60 * 60 * 1000); // a fresh hour: the sends of the tests above are behind
    try {
      const users = [await verifiedUser(), await verifiedUser()];
      const sends = [users[0]!, users[0]!, users[1]!];
      for (const u of sends) expect((await send(u.token, message(uniqueEmail('cap')))).statusCode).toBe(200);
      const third = await verifiedUser();
      const to = uniqueEmail('capped');
      const refused = await send(third.token, message(to));
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toEqual(expect.any(String));
      expect(refused.json).toMatchObject({
        error: 'TOO_MANY_REQUESTS',
        message: expect.stringContaining('users together'),
        nextActions: expect.stringContaining('usersMaxPerHour'),
      });
      expect(peer.pendingFor(to)).toEqual([]);
      t.clock.advance(60 * 60 * 1000);
      const fresh = await verifiedUser();
      expect((await send(fresh.token, message(uniqueEmail('next-hour')))).statusCode).toBe(200);
    } finally {
      await setSettings({ usersMaxPerHour: 100 });
    }
  });

  it("recipients restricted to the sender's own address, or to the allow-list (addresses and @domains)", async () => {
    const user = await verifiedUser();
    await setSettings({ usersMaySend: true, userRecipients: 'self' });
    const stranger = uniqueEmail('stranger');
    const refused = await send(user.token, message([user.email, stranger]));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({
      message: `On this project users may only send to their own address; not allowed: ${stranger}.`,
      nextActions: expect.stringContaining('recipientAllowList'),
    });
    expect(peer.pendingFor(user.email)).toEqual([]);
    expect((await send(user.token, message(user.email))).statusCode).toBe(200);
    await peer.nextMessageTo(user.email);

    const listed = uniqueEmail('listed');
    await setSettings({ userRecipients: 'allow-list', recipientAllowList: [listed.toUpperCase(), '@partner.test'] });
    const offList = await send(user.token, { ...message(listed), bcc: stranger });
    expect(offList.statusCode).toBe(403);
    expect(offList.json.message).toContain(`allow-list; not allowed: ${stranger}`);
    expect((await send(user.token, { ...message(listed), cc: 'anyone@partner.test' })).statusCode).toBe(200);
    await peer.nextMessageTo(listed);
    expect((await setSettingsRaw({ recipientAllowList: ['not an address'] })).statusCode).toBe(400);
    await setSettings({ userRecipients: 'any', recipientAllowList: [] });
  });
});

const setSettingsRaw = (payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/email/send-settings', headers: bearer(t.apiKey), payload });
