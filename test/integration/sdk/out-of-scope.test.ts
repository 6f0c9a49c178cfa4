// The part of the official JavaScript client Plinth does not serve (the second payment processor)
// fails cleanly with a 404 InsForgeError, never a hang or a crash, so an app can detect it; and
// realtime, served now, refuses a channel no admin opened instead of failing to connect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
beforeAll(async () => {
  s = await startSdkApp();
});
afterAll(() => s.close());

describe('not served by Plinth (the spec has no such endpoints)', () => {
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
