// Applies the system schema (db/migrations/*.sql) in order, forward only, under an advisory lock
// so that servers starting together on one database take turns. All pending files apply in one
// transaction: a failure leaves the database as it was, and names the migration that failed.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Sql } from './db.js';

export const systemMigrationsDir = fileURLToPath(new URL('../../db/migrations/', import.meta.url));

const FILE_NAME = /^(\d{14})_[a-z0-9_-]+\.sql$/;
const LOCK_KEY = 'plinth.system_migrations';

/** A platform migration PostgreSQL refused; the transaction of the whole batch was rolled back. */
export class MigrationFailedError extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`Platform migration ${migration} failed: ${(cause as Error).message}`, { cause });
  }
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrationFiles(dir = systemMigrationsDir): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (name) => {
      if (!FILE_NAME.test(name)) throw new Error(`Invalid migration file name: ${name}`);
      const sql = await readFile(`${dir}/${name}`, 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Applies every pending migration; returns the names applied now. */
export async function migrate(sql: Sql, files?: MigrationFile[]): Promise<string[]> {
  const all = files ?? (await readMigrationFiles());
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${LOCK_KEY}))`;
    await tx.unsafe(`
      create schema if not exists system;
      create table if not exists system.migrations (
        name text primary key,
        checksum text not null,
        applied_at timestamptz not null default now()
      );`);
    const applied = new Map(
      (await tx<{ name: string; checksum: string }[]>`select name, checksum from system.migrations`).map((r) => [
        r.name,
        r.checksum,
      ]),
    );
    const done: string[] = [];
    for (const file of all) {
      const checksum = applied.get(file.name);
      if (checksum !== undefined) {
        if (checksum !== file.checksum) {
          throw new Error(`Applied migration ${file.name} was edited; add a new migration instead`);
        }
        continue;
      }
      await tx.unsafe(file.sql).catch((err: unknown) => {
        throw new MigrationFailedError(file.name, err);
      });
      await tx`insert into system.migrations (name, checksum) values (${file.name}, ${file.checksum})`;
      done.push(file.name);
    }
    return done;
  });
}

/**
 * The names of the applied system migrations, or null on a database no Plinth has migrated yet
 * (no history table): what an upgrade check compares the files with.
 */
export async function appliedMigrationNames(sql: Sql): Promise<string[] | null> {
  const [table] = await sql<{ found: string | null }[]>`select to_regclass('system.migrations')::text as found`;
  if (!table?.found) return null;
  const rows = await sql<{ name: string }[]>`select name from system.migrations order by name`;
  return rows.map((r) => r.name);
}

/** Names of system migrations not yet applied (for the readiness check). */
export async function pendingMigrations(sql: Sql, files: MigrationFile[]): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`select name from system.migrations`;
  const applied = new Set(rows.map((r) => r.name));
  return files.filter((f) => !applied.has(f.name)).map((f) => f.name);
}
