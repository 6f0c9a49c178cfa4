// Access keys of the S3 gateway: minted here (the secret is shown once and stored sealed by the
// keyring), listed without secrets, revoked, and looked up by the gateway's signature check.
import { randomBytes, randomInt } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';

const MAX_KEYS = 50;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

interface KeyRow {
  id: string;
  access_key_id: string;
  description: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

const toKey = (row: KeyRow) => ({
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
      const row = await sql.begin(async (tx) => {
        // One creator at a time, so the limit holds under concurrent requests.
        await tx`select pg_advisory_xact_lock(hashtext('storage.s3_access_keys'))`;
        const [existing] = await tx<{ count: number }[]>`select count(*)::int as count from storage.s3_access_keys`;
        if ((existing?.count ?? 0) >= MAX_KEYS) {
          throw new AppError('S3_ACCESS_KEY_LIMIT_EXCEEDED', `At most ${MAX_KEYS} S3 access keys may exist.`, {
            nextActions: 'Delete an unused access key first.',
          });
        }
        const [created] = await tx<KeyRow[]>`
          insert into storage.s3_access_keys (access_key_id, secret_ciphertext, description, created_at)
          values (${accessKeyId}, ${deps.keyring.seal(secretAccessKey)}, ${description ?? null}, ${deps.clock.now()})
          returning id, access_key_id, description, created_at, last_used_at`;
        return created!;
      });
      return { ...toKey(row), secretAccessKey };
    },

    async list() {
      const rows = await sql<KeyRow[]>`
        select id, access_key_id, description, created_at, last_used_at from storage.s3_access_keys order by created_at, id`;
      return rows.map(toKey);
    },

    async remove(id: string): Promise<void> {
      const rows = await sql`delete from storage.s3_access_keys where id = ${id} returning id`;
      if (rows.length === 0) throw new AppError('S3_ACCESS_KEY_NOT_FOUND', 'Access key not found.');
    },

    /** The secret of an access key id, or null; marks the key as used. */
    async secretOf(accessKeyId: string): Promise<string | null> {
      const [row] = await sql<{ secret_ciphertext: string }[]>`
        update storage.s3_access_keys set last_used_at = ${deps.clock.now()}
        where access_key_id = ${accessKeyId} returning secret_ciphertext`;
      return row ? deps.keyring.open(row.secret_ciphertext) : null;
    },
  };
}

export type AccessKeys = ReturnType<typeof createAccessKeys>;
