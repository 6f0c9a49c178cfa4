// Which columns of a watched table each role may SELECT, so a row change carries no column its
// subscriber could not read through the records API. Asked once per role and table, remembered
// while the schema version stays (GRANT and REVOKE are DDL: they move it); never remembered
// where DDL does not move the version (no event trigger).
import type { Sql } from '../../core/db.js';
import { readableColumns } from './readable-columns.repo.js';

export type ColumnSet = ReadonlySet<string>;

export function createReadableColumns(sql: Sql) {
  let version: string | null = null;
  const known = new Map<string, ColumnSet>();
  const keyOf = (table: string, role: string) => `${role}\u0000${table}`;

  return {
    /** The columns of `table` each of `roles` may SELECT at `schemaVersion` (null: ask every time). */
    async of(table: string, roles: string[], schemaVersion: string | null): Promise<Map<string, ColumnSet>> {
      if (schemaVersion === null || schemaVersion !== version) {
        known.clear();
        version = schemaVersion;
      }
      const missing = [...new Set(roles)].filter((role) => !known.has(keyOf(table, role)));
      const found = new Map<string, ColumnSet>();
      if (missing.length > 0) {
        for (const row of await readableColumns(sql, table, missing)) {
          const columns = new Set(row.columns);
          found.set(row.role, columns);
          if (schemaVersion !== null && version === schemaVersion) known.set(keyOf(table, row.role), columns);
        }
      }
      return new Map(roles.map((role) => [role, found.get(role) ?? known.get(keyOf(table, role)) ?? new Set()]));
    },
  };
}

export type ReadableColumns = ReturnType<typeof createReadableColumns>;

/** The image with only the columns in `columns` (null stays null). */
export function onlyColumns(image: Record<string, unknown> | null | undefined, columns: ColumnSet) {
  if (!image) return image ?? null;
  return Object.fromEntries(Object.entries(image).filter(([name]) => columns.has(name)));
}
