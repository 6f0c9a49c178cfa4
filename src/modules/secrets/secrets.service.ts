// Admin management of secrets: list (no values), reveal one, create (or revive), update, soft
// delete, and rotation of the API key, the anon key and the signing key. Every write notifies `plinth_secrets` in its
// own transaction, so the change and the notification commit together.
import { AppError } from '../../core/errors.js';
import { withTx, type Queryable } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import type { AccessKeyKind, AccessKeyService } from './access-keys.js';
import { isRetiredKeyName, isWriteOnlySecret } from './platform-keys.js';
import * as repo from './secrets.repo.js';
import type { SigningKeyService } from './signing-keys.js';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const viewOf = (m: repo.SecretMeta) => ({
  ...m,
  lastUsedAt: iso(m.lastUsedAt),
  expiresAt: iso(m.expiresAt),
  createdAt: m.createdAt.toISOString(),
  updatedAt: m.updatedAt.toISOString(),
});

const notFound = (key: string) =>
  new AppError('NOT_FOUND', `Secret not found: ${key}`, { nextActions: 'List the secrets with GET /api/secrets.' });

const reserved = (verb: 'update' | 'delete', key: string) =>
  new AppError('FORBIDDEN', `Cannot ${verb} reserved secret: ${key}`, {
    nextActions:
      'Reserved secrets belong to the platform; the API and anon keys rotate through their rotate endpoints.',
  });

export interface NewSecretInput {
  key: string;
  value: string;
  isReserved?: boolean;
  expiresAt?: Date | null;
}

export interface SecretUpdate {
  value?: string;
  isActive?: boolean;
  isReserved?: boolean;
  expiresAt?: Date | null;
}

export function createSecretsService(
  deps: Pick<Deps, 'sql' | 'keyring' | 'clock'>,
  accessKeys: AccessKeyService,
  signingKeys: SigningKeyService,
) {
  /** Runs a write and its notification in one transaction, after reading the stored row. */
  const write = <T>(key: string, work: (tx: Queryable, meta: repo.SecretMeta | undefined) => Promise<T>) =>
    withTx(deps.sql, async (tx) => {
      const result = await work(tx, await repo.findSecretMeta(tx, key));
      await repo.notifySecretChange(tx, key);
      return result;
    });

  /** Changes a secret that exists and is not reserved. */
  const change = (key: string, verb: 'update' | 'delete', changes: repo.SecretChanges) =>
    write(key, async (tx, meta) => {
      if (!meta) throw notFound(key);
      if (meta.isReserved) throw reserved(verb, key);
      await repo.updateSecret(tx, key, changes);
    });

  return {
    async list() {
      return (await repo.listSecrets(deps.sql)).map(viewOf);
    },

    /** The value of an active, unexpired secret; marks it used. Platform credentials are never shown. */
    async reveal(key: string): Promise<string> {
      if (isWriteOnlySecret(key)) {
        throw new AppError('FORBIDDEN', `The value of platform secret ${key} is never shown.`, {
          nextActions:
            'Platform credentials are write-only: rotate the signing key with POST /api/secrets/signing-key/rotate, the API key with POST /api/secrets/api-key/rotate; the generated admin password is printed on the first start (set ADMIN_PASSWORD to choose one).',
        });
      }
      const sealed = await repo.useActiveSecret(deps.sql, key, deps.clock.now());
      if (sealed === undefined) throw notFound(key);
      return deps.keyring.open(sealed);
    },

    /** Creates the secret (or revives an inactive one of the same key); answers its id. */
    async create(input: NewSecretInput): Promise<string> {
      const { key, value, isReserved = false, expiresAt = null } = input;
      if (isRetiredKeyName(key)) {
        throw new AppError('FORBIDDEN', `The key ${key} is reserved for retired platform keys.`, {
          nextActions: 'Choose another key.',
        });
      }
      const id = await write(key, (tx) =>
        repo.createOrRevive(tx, { key, valueCiphertext: deps.keyring.seal(value), isReserved, expiresAt }),
      );
      if (id === undefined) {
        throw new AppError('SECRET_ALREADY_EXISTS', `Secret already exists: ${key}`, {
          nextActions: `Change it with PUT /api/secrets/${key}.`,
        });
      }
      return id;
    },

    async update(key: string, update: SecretUpdate): Promise<void> {
      const { value, ...changes } = update;
      await change(key, 'update', {
        ...changes,
        valueCiphertext: value === undefined ? undefined : deps.keyring.seal(value),
      });
    },

    /** Soft delete: the secret stays, inactive. */
    async deactivate(key: string): Promise<void> {
      await change(key, 'delete', { isActive: false });
    },

    /** A new API or anon key; the old one keeps working for `graceHours`. */
    async rotate(kind: AccessKeyKind, graceHours: number) {
      const label = kind === 'api' ? 'API key' : 'Anon key';
      const { key, oldKeyExpiresAt } = await accessKeys.rotate(kind, graceHours);
      const expiry = oldKeyExpiresAt.toISOString();
      return {
        key,
        success: true,
        message: `${label} rotated; the old key works until ${expiry}`,
        oldKeyExpiresAt: expiry,
      };
    },

    /** A new access-token signing key; the old one still verifies for `graceHours` (0: refused now). */
    async rotateSigningKey(graceHours: number) {
      const { keyId, oldKeyExpiresAt } = await signingKeys.rotate(graceHours);
      const expiry = oldKeyExpiresAt.toISOString();
      return {
        success: true,
        message: `Signing key rotated; tokens signed by the old key are accepted until ${expiry}`,
        keyId,
        oldKeyExpiresAt: expiry,
      };
    },
  };
}

export type SecretsService = ReturnType<typeof createSecretsService>;
