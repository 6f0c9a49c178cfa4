// A stranger's flood of wrong passwords cannot keep the (verified) owner out: the flood locks the account's
// password sign-in (per-account limit), but the owner gets in at once with a code emailed to the
// address, which lifts the lock, so the password works again too. Against a real SMTP peer.
import { describe, expect, it } from 'vitest';
import type { SmtpPeer } from '../../harness/smtp-peer.js';
import { codeFrom } from '../../harness/smtp-peer.js';
import type { TestApp } from '../../harness/test-app.js';
import { type EmailApi, freshIp, useEmailTestApp, verifiedUser } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: false }, (ctx) => ({ t, peer, api } = ctx));

const passwordSignIn = (email: string, password: string, ip: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/sessions?client_type=mobile',
    payload: { email, password },
    remoteAddress: ip,
  });

describe('account lock after a flood of wrong passwords', () => {
  it('the owner signs in with an emailed code at once, which lifts the lock for the password too', async () => {
    // The per-account limit lowered by the admin's override (default 100 per hour), to keep it short.
    await api.setLimits([{ name: 'failed-sign-in:account', max: 5, windowSeconds: 3600 }]);
    try {
      const owner = await verifiedUser(t, peer);
      const attacker = freshIp();
      for (let i = 0; i < 5; i++)
        expect((await passwordSignIn(owner.email, `wrong-${i}`, attacker)).statusCode).toBe(401);
      const ownerIp = freshIp();
      const locked = await passwordSignIn(owner.email, owner.password, ownerIp);
      expect(locked.statusCode).toBe(429);
      expect(locked.json.nextActions).toContain('/api/auth/email/send-otp');

      expect((await api.sendOtp(owner.email, ownerIp)).statusCode).toBe(202);
      const code = codeFrom(await peer.nextMessageTo(owner.email));
      const byCode = await api.otpSignIn(owner.email, code, { ip: ownerIp });
      expect(byCode.statusCode, byCode.body).toBe(200);
      expect(byCode.json.user.id).toBe(owner.id);
      expect((await passwordSignIn(owner.email, owner.password, ownerIp)).statusCode).toBe(200);
    } finally {
      await api.setLimits([{ name: 'failed-sign-in:account', reset: true }]);
    }
  });
});
