// The AI gateway provider's keys, kept as reserved secrets (`OPENROUTER_API_KEY`, seeded once from
// the environment, and the optional `OPENROUTER_MANAGEMENT_API_KEY`): read and replaced by the
// admin, masked for display.
import { withTx, type Queryable, type Sql } from '../../core/db.js';
import type { Keyring } from '../../core/keyring.js';
import { readSealedSecret, seedReservedSecret, writeReservedSecret } from '../secrets/index.js';

export const AI_PROVIDERS = { openrouter: { secret: 'OPENROUTER_API_KEY', label: 'OpenRouter' } } as const;
export type AiProvider = keyof typeof AI_PROVIDERS;
/** The gateway's credentials by their name in GET/PUT /api/ai/config. */
export const GATEWAY_SECRETS = {
  apiKey: AI_PROVIDERS.openrouter.secret,
  managementKey: 'OPENROUTER_MANAGEMENT_API_KEY',
} as const;
type SecretName = (typeof GATEWAY_SECRETS)[keyof typeof GATEWAY_SECRETS];

const MASK = '••••••••';

/** First 8 characters, a mask, the last 4; only the mask for keys of 12 characters or fewer. */
export const maskKey = (key: string): string => (key.length <= 12 ? MASK : `${key.slice(0, 8)}${MASK}${key.slice(-4)}`);

export async function readGatewaySecret(db: Queryable, keyring: Keyring, name: SecretName) {
  const sealed = await readSealedSecret(db, name);
  return sealed === undefined ? undefined : keyring.open(sealed);
}

export const readProviderKey = (db: Queryable, keyring: Keyring, provider: AiProvider): Promise<string | undefined> =>
  readGatewaySecret(db, keyring, AI_PROVIDERS[provider].secret);

export const storeProviderKey = (db: Sql, keyring: Keyring, provider: AiProvider, apiKey: string, now: Date) =>
  storeGatewaySecret(db, keyring, AI_PROVIDERS[provider].secret, apiKey, now);

/** Stores the value (replacing or reviving the stored one) and notifies, in one transaction. */
export async function storeGatewaySecret(db: Sql, keyring: Keyring, name: SecretName, apiKey: string, now: Date) {
  await withTx(db, (tx) => writeReservedSecret(tx, name, keyring.seal(apiKey), now));
}

/** Seeds the stored key from the environment when none is stored yet (first start). */
export async function seedProviderKey(db: Sql, keyring: Keyring, provider: AiProvider, apiKey: string | undefined) {
  if (apiKey === undefined) return;
  await withTx(db, (tx) => seedReservedSecret(tx, AI_PROVIDERS[provider].secret, keyring.seal(apiKey)));
}
