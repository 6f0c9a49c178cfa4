// Makes an archive: one REPEATABLE READ, READ ONLY transaction (a consistent snapshot) reads the
// user schemas' DDL from the catalogs and every table's rows with COPY ... TO STDOUT, streamed
// record by record into `out` (never the whole database in memory). Not pg_dump: the embedded
// PostgreSQL ships none, and pg_dump's major version must match the server's.
import type { Readable, Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { BlobStore } from '../../platform/blob-store/blob-store.js';
import type { ReservedSql } from 'postgres';
import { archiveWriter, type ArchiveHeader } from './archive.js';
import { defaultPrivilegeDdl, grantDdl } from './catalog-acl-ddl.repo.js';
import * as ddl from './catalog-ddl.repo.js';
import * as post from './catalog-post-ddl.repo.js';
import { platformMigrationNames, storedFiles, userExtensions } from './platform.repo.js';
import { copyTables, userSchemas } from './table-data.repo.js';

export interface DumpScope {
  /** Where stored files live; when set, their bytes go into the archive too. */
  files?: BlobStore;
  /** Schemas the platform's migrations create (never dropped, only their rows are copied). */
  platformSchemas: string[];
  /** Platform tables that are not part of a backup ("schema.table"). */
  excludedTables: string[];
  /** The keys of archive signatures: the first signs, every one verifies (previous master keys'). */
  archiveKeys: Buffer[];
}

/** `sql` is the connection that holds the backup lock (see backups.service.ts). */
export async function dumpDatabase(sql: ReservedSql, scope: DumpScope, out: Writable, now: Date): Promise<void> {
  await inSnapshot(sql, async (tx) => {
    await tx`select set_config('search_path', 'pg_catalog', true), set_config('statement_timeout', '0', true)`;
    const schemas = await userSchemas(tx, scope.platformSchemas);
    const writer = archiveWriter(out, scope.archiveKeys[0] as Buffer);
    const header: ArchiveHeader = {
      format: 1,
      createdAt: now.toISOString(),
      platformMigrations: await platformMigrationNames(tx),
      userSchemas: schemas,
      extensions: await userExtensions(tx, schemas),
    };
    await writer.start();
    await writer.record({ header });
    const sqlRecords = async (statements: string[]) => {
      for (const s of statements) await writer.record({ sql: s });
    };
    const copyAll = async (tables: Awaited<ReturnType<typeof copyTables>>) => {
      for (const t of tables) {
        await writer.record({ copy: t.name, columns: t.columns });
        const rows: Readable = await tx.unsafe(`copy ${t.name} (${t.columns.join(', ')}) to stdout`).readable();
        // The connection resumes after the copy's end even when its last rows filled the stream's
        // buffer (patches/postgres+3.4.9+007+copy-to-resumes-socket.patch; unpatched, it stayed paused).
        await writer.copyRows(rows);
      }
    };

    await writer.record({ phase: 'system-data' });
    await copyAll(await copyTables(tx, scope.platformSchemas, scope.excludedTables));

    if (scope.files) {
      await writer.record({ phase: 'files' });
      for (const f of await storedFiles(tx)) {
        const bytes = await scope.files.read(f.blobId);
        if (bytes) await writer.blob(f.blobId, f.size, bytes); // a file deleted since the snapshot is skipped
      }
    }

    // Created in an order where each object finds what it names: types, the routines whose
    // signatures name none of the tables, range types, domain checks, tables, then views and the
    // other routines along their dependencies.
    await writer.record({ phase: 'user-schema' });
    for (const part of [
      ddl.schemaDdl,
      ddl.extensionDdl,
      ddl.typeDdl,
      ddl.earlyRoutineDdl,
      ddl.rangeTypeDdl,
      ddl.domainConstraintDdl,
      ddl.sequenceDdl,
      ddl.tableDdl,
      ddl.inheritanceDdl,
      ddl.viewAndLateRoutineDdl,
    ])
      await sqlRecords(await part(tx, schemas));

    await writer.record({ phase: 'user-data' });
    await copyAll(await copyTables(tx, schemas, []));

    await writer.record({ phase: 'user-post' });
    for (const part of [
      post.sequenceOwnershipDdl,
      post.columnDefaultDdl,
      post.keyAndCheckConstraintDdl,
      post.indexDdl,
      post.indexAttachDdl,
      post.foreignKeyDdl,
      post.statisticsDdl,
      post.triggerDdl,
      post.ruleDdl,
      post.rowSecurityDdl,
      post.policyDdl,
      grantDdl,
      defaultPrivilegeDdl,
      post.commentDdl,
      post.refreshMaterializedViewDdl,
      post.sequencePositions,
    ])
      await sqlRecords(await part(tx, schemas));
    await writer.end();
  });
}

/**
 * Dumps on `conn` into blob `blobId` of `store`, gzip-compressed, and makes the blob readable;
 * returns its size. On a failure nothing is left in the store.
 */
export async function dumpToBlob(
  conn: ReservedSql,
  scope: DumpScope,
  store: BlobStore,
  blobId: string,
  now: Date,
): Promise<number> {
  // The dump writes into gzip, which the blob store reads from (its pipeline handles gzip's errors).
  // Level 1: gzip is the dump's bottleneck (one core); the higher levels cost 3-4x the time for little gain.
  const gzip = createGzip({ level: 1 });
  const staged = store.stage(blobId, gzip, Number.MAX_SAFE_INTEGER);
  staged.catch(() => {}); // awaited below; a store that fails mid-dump must not end the process meanwhile
  try {
    await dumpDatabase(conn, scope, gzip, now);
    gzip.end();
    const blob = await staged;
    await store.promote(blobId);
    return blob.size;
  } catch (err) {
    gzip.destroy(err as Error);
    await staged.catch(() => {});
    await store.remove(blobId).catch(() => {});
    throw err;
  }
}

/** One REPEATABLE READ, READ ONLY transaction on the reserved connection. */
async function inSnapshot(conn: ReservedSql, work: (tx: ReservedSql) => Promise<void>): Promise<void> {
  await conn.unsafe('begin isolation level repeatable read, read only');
  try {
    await work(conn);
  } catch (err) {
    await conn.unsafe('rollback').catch(() => {});
    throw err;
  }
  await conn.unsafe('commit');
}
