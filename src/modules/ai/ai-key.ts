// The AI gateway provider's API key, kept as a reserved secret (`OPENROUTER_API_KEY`): seeded once
// from the environment, read and replaced by the admin, masked for display.
import { withTx, type Queryable, type Sql } from '../../core/db.js';
import type { Keyring } from '../../core/keyring.js';
import { insertReservedSecrets, notifySecretChange, readActiveSecrets, updateSecret } from '../secrets/index.js';

export const AI_PROVIDERS = { openrouter: { secret: 'OPENROUTER_API_KEY', label: 'OpenRouter' } } as const;
export type AiProvider = keyof typeof AI_PROVIDERS;

const MASK = '••••••••';

/** First 8 characters, a mask, the last 4; only the mask for keys of 12 characters or fewer. */
export const maskKey = (key: string): string => (key.length <= 12 ? MASK : `${key.slice(0, 8)}${MASK}${key.slice(-4)}`);

export async function readProviderKey(
  db: Queryable,
  keyring: Keyring,
  provider: AiProvider,
): Promise<string | undefined> {
  const [row] = await readActiveSecrets(db, [AI_PROVIDERS[provider].secret]);
  return row ? keyring.open(row.valueCiphertext) : undefined;
}

/** Stores the key (replacing or reviving the stored one) and notifies, in one transaction. */
export async function storeProviderKey(db: Sql, keyring: Keyring, provider: AiProvider, apiKey: string) {
  const name = AI_PROVIDERS[provider].secret;
  await withTx(db, async (tx) => {
    const valueCiphertext = keyring.seal(apiKey);
    await insertReservedSecrets(tx, [{ key: name, valueCiphertext }]);
    await updateSecret(tx, name, { valueCiphertext, isActive: true, isReserved: true, expiresAt: null });
    await notifySecretChange(tx, name);
  });
}

/** Seeds the stored key from the environment when none is stored yet (first start). */
export async function seedProviderKey(db: Sql, keyring: Keyring, provider: AiProvider, apiKey: string | undefined) {
  if (apiKey === undefined) return;
  await withTx(db, async (tx) => {
    const name = AI_PROVIDERS[provider].secret;
    if (await insertReservedSecrets(tx, [{ key: name, valueCiphertext: keyring.seal(apiKey) }])) {
      await notifySecretChange(tx, name);
    }
  });
}
