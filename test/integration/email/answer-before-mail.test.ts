// Password reset and verification emails must not tell, by their timing, whether an address is
// registered: both answer before any account lookup or email work. Shown structurally, not by
// timing: with the SMTP peer holding every delivery, a registered address is answered before its
// email even reaches the SMTP server, with the very answer an unknown address gets.
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
    const events: string[] = [];
    const reached = peer.heldMessageTo(registered).then(() => events.push('email reached the SMTP server'));
    // Before the fix the answer waited for the SMTP server (here: until the client gave up).
    const known = await send(registered);
    events.push('answered');
    await reached;
    expect(events).toEqual(['answered', 'email reached the SMTP server']);
    const unknown = await send(uniqueEmail('unknown'));
    expect(known.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    expect(peer.pendingFor(registered)).toEqual([]);
  } finally {
    release();
  }
  expect(codeFrom(await peer.nextMessageTo(registered))).toMatch(/^\d{6}$/);
});
