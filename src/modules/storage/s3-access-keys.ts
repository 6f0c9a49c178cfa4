// Access keys of the S3 gateway: minted here (the secret is shown once and stored sealed by the
// keyring), listed without secrets, revoked, and looked up by the gateway's signature check.
import { randomBytes, randomInt } from 'node:crypto';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './storage.repo.js';

const MAX_KEYS = 50;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const toKey = (row: repo.AccessKeyRow) => ({
  id: row.id,
  accessKeyId: row.access_key_id,
  description: row.description,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
});

export function createAccessKeys(deps: Pick<Deps, 'sql' | 'keyring' | 'clock'>) {
  const { sql } = deps;
  return {
    async create(description: string | undefined) {
      const accessKeyId = `PLNT${Array.from({ length: 16 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('')}`;
      const secretAccessKey = randomBytes(30).toString('base64url');
      const row = await withTx(sql, async (tx) => {
        // One creator at a time, so the limit holds under concurrent requests.
        await repo.lockAccessKeys(tx);
        if ((await repo.countAccessKeys(tx)) >= MAX_KEYS) {
          throw new AppError('S3_ACCESS_KEY_LIMIT_EXCEEDED', `At most ${MAX_KEYS} S3 access keys may exist.`, {
            nextActions: 'Delete an unused access key first.',
          });
        }
        return repo.insertAccessKey(tx, {
          accessKeyId,
          secretCiphertext: deps.keyring.seal(secretAccessKey),
          description: description ?? null,
          createdAt: deps.clock.now(),
        });
      });
      return { ...toKey(row), secretAccessKey };
    },

    async list() {
      return (await repo.listAccessKeys(sql)).map(toKey);
    },

    async remove(id: string): Promise<void> {
      if (!(await repo.deleteAccessKey(sql, id)))
        throw new AppError('S3_ACCESS_KEY_NOT_FOUND', 'Access key not found.');
    },

    /** The secret of an access key id, or null; marks the key as used. */
    async secretOf(accessKeyId: string): Promise<string | null> {
      const sealed = await repo.useAccessKey(sql, accessKeyId, deps.clock.now());
      return sealed === undefined ? null : deps.keyring.open(sealed);
    },
  };
}

export type AccessKeys = ReturnType<typeof createAccessKeys>;
