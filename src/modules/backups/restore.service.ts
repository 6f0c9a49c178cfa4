// Brings a project back from an archive in ONE transaction: the user schemas are dropped and
// rebuilt, the platform tables emptied and reloaded, the data copied in, the sequences set. Any
// failure (a corrupt or truncated archive included) rolls everything back, so the project is
// left as it was. Objects created after the backup do not survive; the platform keys and admin
// sessions are the current ones (restore-keeps.repo.ts). A signed archive's signature is checked
// again as it is read (before its end record); an unsigned one's SQL is guarded.
import { Readable } from 'node:stream';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { overriddenPgError, type PgOverrides } from '../../core/pg-errors.js';
import { archiveReader, ArchiveFormatError, type ArchiveHeader } from './archive.js';
import { archiveMacCheck } from './archive-mac.js';
import { copyRows, copyTargets, guardRecordSql, type RecordPlace, recordFailed } from './restore-records.js';
import { revokeAllDdl } from './catalog-acl-ddl.repo.js';
import { dropUserObjectsDdl } from './catalog-drop.repo.js';
import { dropPoliciesDdl } from './catalog-post-ddl.repo.js';
import type { DumpScope } from './dump.service.js';
import {
  announceRestoredFunctions,
  functionSlugs,
  platformMigrationNames,
  setUserTriggers,
  truncateTables,
  userExtensions,
} from './platform.repo.js';
import { rekeyTableReferences } from '../realtime/index.js';
import { tryOperationLock } from './backups.repo.js';
import { copyTables, userSchemas } from './table-data.repo.js';
import { keepCurrentPlatformRows } from './restore-keeps.repo.js';

/** Restore's meaning of SQLSTATEs (see core/pg-errors.ts): a table lock not granted within lock_timeout. */
const RESTORE_OVERRIDES: PgOverrides = {
  '55P03': (_pg, cause) =>
    new AppError('DATABASE_CONSTRAINT_VIOLATION', 'The restore waited more than 30 s for a table lock.', {
      cause,
      nextActions: 'Nothing was changed. Retry when fewer long transactions are running.',
    }),
};

const busy = () =>
  new AppError('DATABASE_CONSTRAINT_VIOLATION', 'Another backup or restore is in progress.', {
    nextActions: 'Wait for it to finish, then try again.',
  });

export const corruptArchive = (reason: string) =>
  new AppError('DATABASE_CONSTRAINT_VIOLATION', `The backup could not be restored: ${reason}`, {
    nextActions: 'Nothing was changed. Restore another backup, or download this one to inspect it.',
  });

export async function restoreDatabase(
  sql: Sql,
  scope: DumpScope,
  archive: Readable,
  options: { signed: boolean },
): Promise<void> {
  // Its end record reaches the reader only once the signature checked out (else the read fails).
  const input = options.signed ? verified(archive, scope.archiveKeys) : archive;
  try {
    await sql.begin(async (tx) => {
      if (!(await tryOperationLock(tx))) throw busy();
      await tx`select set_config('statement_timeout', '0', true), set_config('lock_timeout', '30s', true),
                      set_config('check_function_bodies', 'off', true), set_config('search_path', 'pg_catalog', true)`;
      const reader = archiveReader(input);
      await reader.start();
      const first = await reader.next();
      if (!('header' in first)) throw new ArchiveFormatError('the archive has no header.');
      await checkCompatible(first.header, await platformMigrationNames(tx));

      const slugsBefore = await functionSlugs(tx);
      // Empty the project: user objects dropped, platform tables truncated (triggers off while loading).
      const schemasNow = await userSchemas(tx, scope.platformSchemas);
      // Archives made before extensions were listed keep every one.
      const keepExtensions = first.header.extensions ?? (await userExtensions(tx, schemasNow));
      for (const s of await dropUserObjectsDdl(tx, schemasNow, keepExtensions)) await tx.unsafe(s);
      const systemTables = (await copyTables(tx, scope.platformSchemas, scope.excludedTables)).map((t) => t.name);
      // The platform keys and admin sessions stay the current ones, whatever the archive holds.
      const kept = await keepCurrentPlatformRows(tx);
      await truncateTables(tx, systemTables);
      await setUserTriggers(tx, systemTables, false);

      const targets = copyTargets(tx, scope);
      for (let index = 2; ; index++) {
        const record = await reader.next();
        if ('end' in record) break;
        if ('phase' in record) {
          targets.forget();
          if (record.phase === 'user-post') {
            // New tables in public got an admin policy and default grants on creation: clear them,
            // so the backup's own policies and grants are the only ones. Only user schemas: a header
            // naming a platform schema must not strip the platform's own policies.
            const own = first.header.userSchemas.filter((name) => !scope.platformSchemas.includes(name));
            for (const s of await dropPoliciesDdl(tx, own)) await tx.unsafe(s);
            for (const s of await revokeAllDdl(tx, own)) await tx.unsafe(s);
          }
          continue;
        }
        if ('sql' in record) {
          const at: RecordPlace = { index, kind: 'sql', sql: String(record.sql) };
          if (!options.signed) await guardRecordSql(at, String(record.sql));
          await named(at, () => tx.unsafe(record.sql).simple());
          continue;
        }
        if ('blob' in record) {
          await restoreFile(scope, record.blob, record.size, reader.bytes(record.size));
          continue;
        }
        if ('copy' in record) {
          const at: RecordPlace = { index, kind: 'copy', table: String(record.copy) };
          const statement = await targets.statement(at, record.copy, record.columns);
          await named(at, () => copyRows(tx, statement, reader.rows()));
          continue;
        }
        throw new ArchiveFormatError('the archive holds an unknown record.');
      }
      await kept.putBack();
      await setUserTriggers(tx, systemTables, true);
      // Platform rows that name user tables by oid: the tables were created anew, with new oids.
      await rekeyTableReferences(tx);
      await tx`select system.bump_schema_version()`;
      await announceRestoredFunctions(tx, slugsBefore);
    });
  } catch (err) {
    if (err instanceof ArchiveFormatError) throw corruptArchive(err.message);
    throw overriddenPgError(RESTORE_OVERRIDES, err) ?? err;
  }
}

/** Runs one record's work; PostgreSQL's refusal comes out naming the record. */
async function named(at: RecordPlace, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    throw recordFailed(at, err) ?? err;
  }
}

/** The gunzipped archive through the signature check (required). */
function verified(archive: Readable, keys: Buffer[]): Readable {
  const mac = archiveMacCheck(keys, { require: true });
  archive.on('error', (err) => mac.tap.destroy(err));
  // The reader surfaces the refusal (it reads the stream's stored error); no uncaught one here.
  mac.tap.on('error', () => {});
  return archive.pipe(mac.tap);
}

/** Refuses an archive whose format or platform migrations this server does not have. */
export function checkCompatible(header: ArchiveHeader, here: string[]): void {
  if (header.format !== 1) throw new ArchiveFormatError('its format is not supported.');
  if (header.platformMigrations.join('\n') !== here.join('\n')) {
    throw new AppError(
      'DATABASE_CONSTRAINT_VIOLATION',
      'The backup was made by another version of Plinth (its platform migrations differ).',
      { nextActions: 'Restore it on a server running the Plinth version that made it.' },
    );
  }
}

/**
 * Puts a file of the archive back in the blob store unless it is still there (blob ids never
 * change meaning). Blob writes are outside the transaction: after a failed restore they are
 * unreferenced copies, harmless.
 */
async function restoreFile(scope: DumpScope, blobId: string, size: number, bytes: AsyncGenerator<Buffer>) {
  const existing = scope.files ? await scope.files.read(blobId) : null;
  if (!scope.files || existing) {
    existing?.destroy();
    for await (const _ of bytes); // skip them
    return;
  }
  await scope.files.stage(blobId, Readable.from(bytes), size);
  await scope.files.promote(blobId);
}
