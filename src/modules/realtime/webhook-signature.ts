// Webhook signatures: the signing secret (a reserved secret, made on first use) and the headers of
// a signed POST. The signature is HMAC-SHA256, hex, over `<timestamp>.<body>` with the secret.
import { createHmac, randomBytes } from 'node:crypto';
import { withTx } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { readSealedSecret, seedReservedSecret } from '../secrets/index.js';

export const SIGNING_SECRET = 'REALTIME_WEBHOOK_SIGNING_SECRET';
export const SIGNATURE_HEADER = 'x-plinth-signature';
export const TIMESTAMP_HEADER = 'x-plinth-timestamp';

/** The signing secret, created (as `whsec_<hex>`) by whichever server needs it first. */
export async function signingSecret(deps: Pick<Deps, 'sql' | 'keyring'>): Promise<string> {
  const sealed = await readSealedSecret(deps.sql, SIGNING_SECRET);
  if (sealed !== undefined) return deps.keyring.open(sealed);
  await withTx(deps.sql, (tx) =>
    seedReservedSecret(tx, SIGNING_SECRET, deps.keyring.seal(`whsec_${randomBytes(32).toString('hex')}`)),
  );
  const seeded = await readSealedSecret(deps.sql, SIGNING_SECRET);
  if (seeded === undefined) throw new Error('the webhook signing secret could not be stored');
  return deps.keyring.open(seeded);
}

/** The signature and timestamp headers of `body` sent at `timestampSeconds`. */
export function signatureHeaders(secret: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return { [TIMESTAMP_HEADER]: String(timestampSeconds), [SIGNATURE_HEADER]: `v1=${signature}` };
}
