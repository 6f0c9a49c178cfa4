// Random identifiers, opaque tokens and the hashes under which tokens are stored.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque, URL-safe random token (256 bits). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const randomHex = (bytes = 32): string => randomBytes(bytes).toString('hex');

/** The form in which a token is stored: never the token itself. */
export const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

export const hmacBase64Url = (key: Buffer, value: string): string =>
  createHmac('sha256', key).update(value).digest('base64url');

/** Constant-time equality of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
