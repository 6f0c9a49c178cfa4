// Expiring download links for private objects on any backend: the object URL plus `expires`
// (epoch seconds) and an HMAC `token` over bucket, key and expiry.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { epochSeconds, type Clock } from '../../core/clock.js';

export const MAX_EXPIRES_IN = 604800;

export function createUrlSigner(key: Buffer, clock: Clock) {
  const mac = (bucket: string, objectKey: string, expires: number) =>
    createHmac('sha256', key).update(`${bucket}\n${objectKey}\n${expires}`).digest();
  return {
    /** The query (`expires`, `token`) that opens this object until `expiresIn` seconds from now. */
    sign(bucket: string, objectKey: string, expiresIn: number): { expires: number; token: string } {
      const expires = epochSeconds(clock.now()) + expiresIn;
      return { expires, token: mac(bucket, objectKey, expires).toString('base64url') };
    },
    verify(bucket: string, objectKey: string, expires: number, token: string): boolean {
      if (!Number.isInteger(expires) || expires < epochSeconds(clock.now())) return false;
      const given = Buffer.from(token, 'base64url');
      const expected = mac(bucket, objectKey, expires);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
