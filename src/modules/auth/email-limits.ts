// Rate limits of the email flows (contract §2.6 numbers are the floor), counted in PostgreSQL.
import type { Limit } from '../../core/rate-limiter.js';

const FIFTEEN_MINUTES = 15 * 60;

export const emailLimits = {
  sendOtpPerIp: { name: 'send-otp:ip', max: 5, windowSeconds: FIFTEEN_MINUTES, message: 'Too many code requests from this address. Try again in {seconds} seconds.' },
  sendVerificationPerIp: { name: 'send-verification:ip', max: 5, windowSeconds: FIFTEEN_MINUTES, message: 'Too many verification emails requested from this address. Try again in {seconds} seconds.' },
  sendResetPerIp: { name: 'send-reset:ip', max: 5, windowSeconds: FIFTEEN_MINUTES, message: 'Too many reset emails requested from this address. Try again in {seconds} seconds.' },
  /** One email per address and purpose per minute. */
  cooldownPerEmail: { name: 'email-cooldown', max: 1, windowSeconds: 60, message: 'Please wait {seconds} seconds before requesting another email for this address.' },
  /** Wrong codes and tokens per IP, across every check (successes are not counted). */
  failedChecksPerIp: { name: 'failed-code:ip', max: 10, windowSeconds: FIFTEEN_MINUTES, message: 'Too many failed attempts from this address. Try again in {seconds} seconds.' },
} satisfies Record<string, Limit>;
