// What the records API may name: tables, views and their columns, primary keys and foreign keys
// of the exposed schemas, and callable functions, read from the catalog. Reloaded when the
// catalog's version moves (DDL bumps it; NOTIFY tells every server), so names in requests are
// only ever compared with this snapshot, never pasted into SQL unchecked.
import type { Sql } from '../../core/db.js';

export interface Column {
  name: string;
  /** format_type(): e.g. integer, text, "timestamp with time zone", public.mood */
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

export interface Table {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: Map<string, Column>;
  primaryKey: string[];
}

export interface ForeignKey {
  name: string;
  schema: string;
  table: string;
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export interface RoutineArg {
  name: string;
  type: string;
  hasDefault: boolean;
}

export interface Routine {
  schema: string;
  name: string;
  args: RoutineArg[];
  returnsSet: boolean;
  /** The result is a row type or table (returned as objects) rather than a scalar. */
  returnsRows: boolean;
  volatile: boolean;
}

export interface SchemaSnapshot {
  version: string;
  schemas: string[];
  tables: Map<string, Table>;
  foreignKeys: ForeignKey[];
  routines: Map<string, Routine>;
}

export const qualified = (schema: string, name: string) => `${schema}.${name}`;

async function loadSnapshot(sql: Sql, schemas: string[]): Promise<SchemaSnapshot> {
  const [versionRows, columnRows, keyRows, routineRows] = await Promise.all([
    sql<{ version: string }[]>`select version::text from system.schema_version`,
    sql<{ schema: string; table: string; kind: string; column: string | null; type: string | null; nullable: boolean; hasDefault: boolean; position: number; isPk: boolean }[]>`
      select n.nspname as schema, c.relname as table, c.relkind as kind,
             a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
             not a.attnotnull as nullable, a.atthasdef as "hasDefault", a.attnum as position,
             coalesce(a.attnum = any(pk.conkey), false) as "isPk"
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_constraint pk on pk.conrelid = c.oid and pk.contype = 'p'
      where n.nspname = any(${schemas}) and c.relkind in ('r', 'p', 'v', 'm', 'f')
      order by n.nspname, c.relname, a.attnum`,
    sql<{ name: string; schema: string; table: string; columns: string[]; refSchema: string; refTable: string; refColumns: string[] }[]>`
      select con.conname as name, n.nspname as schema, c.relname as table,
             array(select a.attname from unnest(con.conkey) with ordinality k(attnum, i)
                   join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.i)::text[] as columns,
             rn.nspname as "refSchema", rc.relname as "refTable",
             array(select a.attname from unnest(con.confkey) with ordinality k(attnum, i)
                   join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.i)::text[] as "refColumns"
      from pg_constraint con
      join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
      join pg_class rc on rc.oid = con.confrelid join pg_namespace rn on rn.oid = rc.relnamespace
      where con.contype = 'f' and n.nspname = any(${schemas}) and rn.nspname = any(${schemas})`,
    sql<{ schema: string; name: string; argNames: string[] | null; argTypes: string[]; argDefaults: number; returnsSet: boolean; returnsRows: boolean; volatile: boolean }[]>`
      select n.nspname as schema, p.proname as name, p.proargnames as "argNames",
             array(select format_type(t, null) from unnest(p.proargtypes) t)::text[] as "argTypes",
             p.pronargdefaults as "argDefaults", p.proretset as "returnsSet",
             (t.typtype = 'c' or p.prorettype = 'record'::regtype) as "returnsRows",
             p.provolatile = 'v' as volatile
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
      where n.nspname = any(${schemas}) and p.prokind = 'f'`,
  ]);

  const tables = new Map<string, Table>();
  for (const row of columnRows) {
    const key = qualified(row.schema, row.table);
    let table = tables.get(key);
    if (!table) {
      table = { schema: row.schema, name: row.table, kind: row.kind === 'v' || row.kind === 'm' ? 'view' : 'table', columns: new Map(), primaryKey: [] };
      tables.set(key, table);
    }
    if (row.column && row.type) {
      table.columns.set(row.column, { name: row.column, type: row.type, nullable: row.nullable, hasDefault: row.hasDefault });
      if (row.isPk) table.primaryKey.push(row.column);
    }
  }
  const routines = new Map<string, Routine>();
  for (const r of routineRows) {
    const inputs = r.argTypes.length;
    routines.set(qualified(r.schema, r.name), {
      schema: r.schema,
      name: r.name,
      args: r.argTypes.map((type, i) => ({ name: r.argNames?.[i] ?? '', type, hasDefault: i >= inputs - r.argDefaults })),
      returnsSet: r.returnsSet,
      returnsRows: r.returnsRows,
      volatile: r.volatile,
    });
  }
  return { version: versionRows[0]?.version ?? '0', schemas, tables, foreignKeys: keyRows, routines };
}

export interface SchemaCache {
  current(): SchemaSnapshot;
  /** Reloads if the catalog changed since the snapshot (one cheap query); true if it did. */
  refreshIfChanged(): Promise<boolean>;
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function createSchemaCache(sql: Sql, schemas: string[]): Promise<SchemaCache> {
  let snapshot = await loadSnapshot(sql, schemas);
  let loading: Promise<void> | undefined;
  const reload = () => {
    // Concurrent callers share one reload.
    loading ??= loadSnapshot(sql, schemas)
      .then((next) => {
        snapshot = next;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
  const listener = await sql.listen('plinth_schema', (version) => {
    if (version !== snapshot.version) void reload().catch(() => {});
  });
  return {
    current: () => snapshot,
    async refreshIfChanged() {
      const [row] = await sql<{ version: string }[]>`select version::text from system.schema_version`;
      if (!row || row.version === snapshot.version) return false;
      // A reload already under way may have read the catalog before this version: wait for it,
      // then reload again until the snapshot is at least as new as what was seen.
      for (let tries = 0; tries < 3 && BigInt(snapshot.version) < BigInt(row.version); tries++) await reload();
      return true;
    },
    reload,
    close: () => listener.unlisten(),
  };
}
