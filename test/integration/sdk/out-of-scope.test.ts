// Parts of the official JavaScript client outside the spec's scope (AI gateway calls, custom
// emails, realtime, the second payment provider): against Plinth they fail cleanly — a 404
// InsForgeError or a failed subscription — never a hang or a crash, so an app can detect them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
beforeAll(async () => {
  s = await startSdkApp();
});
afterAll(() => s.close());

const NOT_FOUND = { statusCode: 404, error: 'NOT_FOUND' };

describe('not served by Plinth (the spec has no such endpoints)', () => {
  it('ai.chat.completions / embeddings / images reject with a 404 InsForgeError', async () => {
    const ai = s.client().ai;
    await expect(
      ai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject(NOT_FOUND);
    await expect(ai.embeddings.create({ model: 'm', input: 'hi' })).rejects.toMatchObject(NOT_FOUND);
    await expect(ai.images.generate({ model: 'm', prompt: 'hi' })).rejects.toMatchObject(NOT_FOUND);
  });

  it('emails.send answers a 404 error', async () => {
    const { data, error } = await s.client().emails.send({ to: 'a@example.com', subject: 's', html: '<p>x</p>' });
    expect(data).toBeNull();
    expect(error).toMatchObject(NOT_FOUND);
  });

  it('payments.razorpay answers a 404 error', async () => {
    const { error } = await s.client().payments.razorpay.createOrder('test', { amount: 100, currency: 'INR' } as never);
    expect(error).toMatchObject({ statusCode: 404 });
  });

  it('realtime is served now: a channel no admin opened is refused, not a connection failure', async () => {
    const client = s.client();
    const result = await client.realtime.subscribe('room:1');
    expect(result).toMatchObject({ ok: false, channel: 'room:1', error: { code: 'REALTIME_UNAUTHORIZED' } });
    client.realtime.disconnect();
  });
});
