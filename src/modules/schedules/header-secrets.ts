// Header values may name secrets as ${{secrets.KEY}}. The schedule stores the template; the
// values are read from the secrets store (sealed there) when a run starts, so a secret's new
// value applies to the next run and no resolved value is ever written anywhere.
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Keyring } from '../../core/keyring.js';
import { readSealedSecrets } from '../secrets/index.js';

const PLACEHOLDER = /\$\{\{\s*secrets\.([A-Za-z0-9_.-]+)\s*\}\}/g;

/** The secret keys each header names, header by header. */
function namedSecrets(headers: Record<string, string>): { header: string; key: string }[] {
  const named: { header: string; key: string }[] = [];
  for (const [header, template] of Object.entries(headers))
    for (const match of template.matchAll(PLACEHOLDER)) named.push({ header, key: match[1]! });
  return named;
}

const missingSecret = (key: string, header: string) =>
  new AppError('SECRET_NOT_FOUND', `Secret with key "${key}" not found for schedule header "${header}".`, {
    nextActions: `Create the secret with POST /api/secrets {"key": "${key}", "value": ...}, or change the header.`,
  });

async function openSecrets(db: Queryable, keyring: Keyring, keys: string[]): Promise<Map<string, string>> {
  const sealed = await readSealedSecrets(db, keys);
  return new Map([...sealed].map(([key, ciphertext]) => [key, keyring.open(ciphertext)]));
}

/** Throws 404 SECRET_NOT_FOUND when a header names a secret that is missing or inactive. */
export async function checkHeaderSecrets(db: Queryable, headers: Record<string, string> | null): Promise<void> {
  if (!headers) return;
  const named = namedSecrets(headers);
  if (named.length === 0) return;
  const found = await readSealedSecrets(
    db,
    named.map((n) => n.key),
  );
  const missing = named.find((n) => !found.has(n.key));
  if (missing) throw missingSecret(missing.key, missing.header);
}

/** The headers with every placeholder replaced by the secret's current value. */
export async function resolveHeaders(
  db: Queryable,
  keyring: Keyring,
  headers: Record<string, string> | null,
): Promise<Record<string, string>> {
  if (!headers) return {};
  const named = namedSecrets(headers);
  const values = await openSecrets(
    db,
    keyring,
    named.map((n) => n.key),
  );
  const missing = named.find((n) => !values.has(n.key));
  if (missing) throw missingSecret(missing.key, missing.header);
  const resolved: Record<string, string> = {};
  for (const [header, template] of Object.entries(headers))
    resolved[header] = template.replace(PLACEHOLDER, (_all, key: string) => values.get(key)!);
  return resolved;
}
