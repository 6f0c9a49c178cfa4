// The public routes' rate limits (contract Part A item 13, issue 13): their names, defaults and
// why. Counted in PostgreSQL; the admin overrides them at run time (rate-limits.routes.ts).
// Admin-authenticated calls are never limited per IP (Part A item 16).
import type { Limit } from '../../core/rate-limiter.js';

const MINUTE = 60;
const FIFTEEN_MINUTES = 15 * MINUTE;
const HOUR = 60 * MINUTE;

export interface CataloguedLimit extends Limit {
  description: string;
}

export const authLimits = {
  /**
   * All code and link emails from one IP. Generous, so that an office NAT or a server-side app
   * whose users share one address is not refused at the 6th email: inboxes are protected by the
   * per-address limits below; this one bounds one host spraying mail to many addresses.
   */
  emailSendPerIp: {
    name: 'email-send:ip',
    max: 100,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many emails requested from this address. Try again in {seconds} seconds.',
    description: 'Code and link emails (sign-in, verification, reset) requested from one IP.',
  },
  /** Emails to one inbox, every purpose together: the cooldown alone would allow 60 an hour. */
  emailSendPerAddress: {
    name: 'email-send:address',
    max: 10,
    windowSeconds: HOUR,
    message: 'Too many emails were requested for this email address. Try again in {seconds} seconds.',
    description: 'Code and link emails sent to one email address, all purposes together.',
  },
  /** One email per address and purpose per minute. */
  emailCooldown: {
    name: 'email-cooldown',
    max: 1,
    windowSeconds: MINUTE,
    message: 'Please wait {seconds} seconds before requesting another email for this address.',
    description: 'Emails of one purpose to one address (a cooldown).',
  },
  /** Wrong codes for one address (sign-in, verification, reset exchange); each code also dies after 3 wrong tries. */
  failedCodesPerAddress: {
    name: 'failed-code:address',
    max: 10,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many failed attempts for this email address. Try again in {seconds} seconds.',
    description: 'Failed code checks for one email address (successes are not counted).',
  },
  /** Wrong codes and reset tokens from one IP, across addresses: generous, so neighbours behind one NAT still get in. */
  failedCodesPerIp: {
    name: 'failed-code:ip',
    max: 100,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many failed attempts from this address. Try again in {seconds} seconds.',
    description: 'Failed code and reset-token checks from one IP (successes are not counted).',
  },
  /**
   * ASVS 2.2.1: at most 100 failed password sign-ins per hour per account. The attempt that fills
   * the window locks the password sign-in for a whole window; afterwards the owner's correct
   * password clears the counter. A stranger's flood never keeps the owner out: signing in with a
   * code emailed to the address, or resetting the password, lifts the lock at once.
   */
  failedSignInsPerAccount: {
    name: 'failed-sign-in:account',
    max: 100,
    windowSeconds: HOUR,
    lockout: true,
    message: 'Too many failed sign-ins for this account. Try again in {seconds} seconds.',
    description: 'Failed password sign-ins for one email address; when full, the account is locked for one window.',
  },
  failedSignInsPerIp: {
    name: 'failed-sign-in:ip',
    max: 200,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many failed sign-ins from this address. Try again in {seconds} seconds.',
    description: 'Failed password sign-ins from one IP, across accounts (successes are not counted).',
  },
  /**
   * The admin's password opens everything: few guesses per IP, and a lock of the admin account
   * (which has no emailed code to lift it) short enough that an attacker cannot keep the admin out
   * for long; the API key still works meanwhile.
   */
  failedAdminSignInsPerIp: {
    name: 'failed-admin-sign-in:ip',
    max: 10,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many failed admin sign-ins from this address. Try again in {seconds} seconds.',
    description: 'Failed admin sign-ins from one IP (successes are not counted).',
  },
  failedAdminSignInsPerAccount: {
    name: 'failed-admin-sign-in:account',
    max: 50,
    windowSeconds: FIFTEEN_MINUTES,
    lockout: true,
    message: 'Too many failed admin sign-ins. Try again in {seconds} seconds.',
    description: 'Failed admin sign-ins from every IP together; when full, admin sign-in is locked for one window.',
  },
  registrationsPerIp: {
    name: 'register:ip',
    max: 100,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many sign-ups from this address. Try again in {seconds} seconds.',
    description: 'Public sign-ups (POST /api/auth/users without admin credentials) from one IP.',
  },
  idTokenPerIp: {
    name: 'id-token:ip',
    max: 30,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many ID-token sign-ins from this address. Try again in {seconds} seconds.',
    description: 'Native ID-token sign-ins (Google, Apple) from one IP.',
  },
  /** Each anonymous sign-in creates a user: GoTrue's default, 30 an hour per IP. */
  anonymousSignInsPerIp: {
    name: 'anonymous-sign-in:ip',
    max: 30,
    windowSeconds: HOUR,
    message: 'Too many anonymous sign-ins from this address. Try again in {seconds} seconds.',
    description: 'Anonymous sign-ins (POST /api/auth/anonymous), each of which creates a user, from one IP.',
  },
  /** Each passkey sign-in starts with options: a stored challenge, so a host cannot fill the table. */
  passkeySignInPerIp: {
    name: 'passkey-sign-in:ip',
    max: 300,
    windowSeconds: FIFTEEN_MINUTES,
    message: 'Too many passkey sign-ins from this address. Try again in {seconds} seconds.',
    description: 'Passkey sign-in options (each a stored challenge) requested from one IP.',
  },
} satisfies Record<string, CataloguedLimit>;

/** How the owner of a locked account gets in at once (signing in by code lifts the lock). */
export const LOCKED_ACCOUNT_HINT =
  'If this is your account, sign in with a code emailed to you (POST /api/auth/email/send-otp, then POST /api/auth/sessions with the otp) or reset the password: either lifts the lock at once.';

export const LIMIT_NAMES = Object.values(authLimits).map((l) => l.name) as [string, ...string[]];
