// Webhook signatures: the signing secret (a reserved secret, made on first use) and the headers of
// a signed POST. Everything a receiver routes on is signed with the body, so none of it can be
// changed or replayed onto another channel: the signature (header x-plinth-signature, "v2=<hex>")
// is HMAC-SHA256 with the secret over the lines
//   <timestamp>\n<message id>\n<channel>\n<event>\n<sender type>\n<sender id>\n<body>
// where each field is the value of its header exactly as sent (channel and event percent-encoded
// as encodeURI does, so no field holds a newline; sender id empty for none).
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

export interface SignedMessage {
  messageId: string;
  channel: string;
  event: string;
  senderType: 'system' | 'user';
  senderId: string | null;
  body: string;
}

/** The headers of `message` sent at `timestampSeconds`: its routing fields, sender, timestamp and signature. */
export function signedHeaders(
  secret: string,
  timestampSeconds: number,
  message: SignedMessage,
): Record<string, string> {
  const fields = {
    [TIMESTAMP_HEADER]: String(timestampSeconds),
    'x-svc-message-id': message.messageId,
    'x-svc-channel': encodeURI(message.channel),
    'x-svc-event': encodeURI(message.event),
    'x-svc-sender-type': message.senderType,
    'x-svc-sender-id': message.senderId ?? '',
  };
  const signed = [...Object.values(fields), message.body].join('\n');
  const signature = createHmac('sha256', secret).update(signed).digest('hex');
  return { ...fields, [SIGNATURE_HEADER]: `v2=${signature}` };
}
