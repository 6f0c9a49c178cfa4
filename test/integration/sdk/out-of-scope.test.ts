// Parts of the official JavaScript client that need the admin first fail cleanly with a 4xx
// InsForgeError carrying what to do, never a hang or a crash: Razorpay (served since issue 36;
// sdk/razorpay.test.ts) before its keys are stored, and realtime on a channel no admin opened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
beforeAll(async () => {
  s = await startSdkApp();
});
afterAll(() => s.close());

describe('not set up by the admin yet', () => {
  it('payments.razorpay without keys answers 400 PAYMENT_CONFIG_NOT_FOUND with nextActions', async () => {
    const { error } = await s.client().payments.razorpay.createOrder('test', { amount: 100, currency: 'INR' } as never);
    expect(error).toMatchObject({ statusCode: 400, error: 'PAYMENT_CONFIG_NOT_FOUND' });
    expect(error!.nextActions).toContain('/api/payments/razorpay/test/config');
  });

  it('realtime is served now: a channel no admin opened is refused, not a connection failure', async () => {
    const client = s.client();
    const result = await client.realtime.subscribe('room:1');
    expect(result).toMatchObject({ ok: false, channel: 'room:1', error: { code: 'REALTIME_UNAUTHORIZED' } });
    client.realtime.disconnect();
  });
});
