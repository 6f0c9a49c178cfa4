// The platform's own migration history (a restore needs the same one) and the table locks a
// restore takes.
import type { Queryable } from '../../core/db.js';

export async function platformMigrationNames(db: Queryable): Promise<string[]> {
  const rows = await db<{ name: string }[]>`select name from system.migrations order by name`;
  return rows.map((r) => r.name);
}

/** Drops every statement's effects on `tables`' user triggers while rows load (owner-level, no superuser). */
export async function setUserTriggers(db: Queryable, tables: string[], enabled: boolean): Promise<void> {
  for (const t of tables) await db.unsafe(`alter table ${t} ${enabled ? 'enable' : 'disable'} trigger user`);
}

export async function truncateTables(db: Queryable, tables: string[]): Promise<void> {
  if (tables.length) await db.unsafe(`truncate ${tables.join(', ')}`);
}

export async function functionSlugs(db: Queryable): Promise<string[]> {
  const rows = await db<{ slug: string }[]>`select slug from functions.definitions`;
  return rows.map((r) => r.slug);
}

/**
 * Tells every server (at commit) that functions and secrets changed: each function slug that
 * existed before or exists after the restore is re-read (the functions module's LISTEN
 * plinth_functions), and the functions' secrets reloaded (plinth_secrets).
 */
export async function announceRestoredFunctions(db: Queryable, slugsBefore: string[]): Promise<void> {
  await db`select pg_notify('plinth_functions', s)
             from (select slug as s from functions.definitions union select unnest(${slugsBefore}::text[])) x`;
  await db`select pg_notify('plinth_secrets', 'restore')`;
}

/** The stored files the storage metadata names (blob id and size), in the snapshot being dumped. */
export async function storedFiles(db: Queryable): Promise<{ blobId: string; size: number }[]> {
  const rows = await db<{ blobId: string; size: string }[]>`
    select blob_id::text as "blobId", size::text as size from storage.objects order by blob_id`;
  return rows.map((r) => ({ blobId: r.blobId, size: Number(r.size) }));
}

/** The extensions installed in the user schemas. */
export async function userExtensions(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db<{ extname: string }[]>`
    select e.extname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where n.nspname = any(${schemas})`;
  return rows.map((r) => r.extname);
}
