// Password reset and verification emails must not tell, by their timing, whether an address is
// registered: both answer before any account lookup or email work. Shown structurally, not by
// timing: with the SMTP peer holding every delivery, a registered address is answered while its
// email is still unaccepted, with the very answer an unknown address gets; released, it arrives.
import { expect, it } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { type EmailApi, freshIp, uniqueEmail, useEmailTestApp } from './email-helpers.js';

let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ peer, api } = ctx));

const flows = [
  ['send-reset-password', (email: string) => api.sendReset(email, undefined, freshIp())],
  ['send-verification', (email: string) => api.sendVerification(email, undefined, freshIp())],
] as const;

it.each(flows)('%s: answered before the email is accepted, exactly as an unknown address', async (_name, send) => {
  await api.setConfig({ requireEmailVerification: true });
  const registered = uniqueEmail('known');
  expect((await api.register({ email: registered, password: 'password-123' })).statusCode).toBe(200);
  await peer.nextMessageTo(registered); // the sign-up's own verification email

  const release = peer.hold();
  try {
    // Before the fix this request waited for the SMTP server, which never answers while held.
    const known = await send(registered);
    const unknown = await send(uniqueEmail('unknown'));
    expect(known.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    expect(peer.pendingFor(registered)).toEqual([]);
  } finally {
    release();
  }
  expect(codeFrom(await peer.nextMessageTo(registered))).toMatch(/^\d{6}$/);
});
