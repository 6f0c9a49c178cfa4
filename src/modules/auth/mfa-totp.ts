// TOTP (RFC 6238) through otpauth: new secrets, their otpauth:// URI and QR code (SVG data URI,
// qrcode), and which time step a code matches at a given moment (±1 step of clock drift).
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps either side of now a code may come from (authenticator clocks drift). */
const WINDOW = 1;

const totpOf = (secret: string, issuer = '', label = '') =>
  new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** A new random secret (160 bits, base32), as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The otpauth:// URI an authenticator app scans. */
export const totpUri = (secret: string, issuer: string, label: string): string =>
  totpOf(secret, issuer, label).toString();

/** The URI as a QR code: an SVG data URI (GoTrue's qr_code shape). */
export async function totpQrCode(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
  // '#' (the SVG's colours) would start the URL's fragment and cut the image short in <img src>.
  return `data:image/svg+xml;utf-8,${svg.replaceAll('#', '%23')}`;
}

/** The time step (counter) a code matches at `now`, or null when it matches none in the window. */
export function matchingStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret);
  const timestamp = now.getTime();
  const delta = totp.validate({ token: code, timestamp, window: WINDOW });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}
