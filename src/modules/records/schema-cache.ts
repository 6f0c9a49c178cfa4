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
  /** The DEFAULT expression (the column's, else its domain's), as the catalog prints it. */
  defaultSql?: string;
}

export interface Table {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: Map<string, Column>;
  primaryKey: string[];
  /** Column sets that are unique (the primary key and unique constraints). */
  uniqueKeys: string[][];
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
  /** '' for an unnamed parameter (callable only as a single unnamed json/jsonb argument). */
  name: string;
  type: string;
  hasDefault: boolean;
  /** `VARIADIC name type[]`: called as `variadic name => array`. */
  variadic: boolean;
}

export interface Routine {
  schema: string;
  name: string;
  /** The input parameters (IN, INOUT, VARIADIC), in order. */
  args: RoutineArg[];
  returnsSet: boolean;
  /** The result is a row type or table (returned as objects) rather than a scalar. */
  returnsRows: boolean;
  volatile: boolean;
  /** format_type() of the return type: integer, text[], public.notes, record, void… */
  returnType: string;
  returnsVoid: boolean;
  /**
   * The columns of a row result: the OUT/TABLE parameters, or the attributes of the composite
   * type it returns. Empty for scalars and for `returns [setof] record` without OUT parameters.
   */
  columns: Column[];
  /** The table or view whose row type it returns, if any (embedding follows its foreign keys). */
  returnTable?: { schema: string; name: string };
}

export interface SchemaSnapshot {
  version: string;
  schemas: string[];
  tables: Map<string, Table>;
  foreignKeys: ForeignKey[];
  /** Overloads share a name: each key holds every function of that schema and name. */
  routines: Map<string, Routine[]>;
}

export const qualified = (schema: string, name: string) => `${schema}.${name}`;

async function loadSnapshot(sql: Sql, schemas: string[]): Promise<SchemaSnapshot> {
  // One snapshot of the catalog: read on separate connections, the version could be newer than
  // the tables read with it (a table created in between would then never be reloaded).
  const [versionRows, columnRows, keyRows, routineRows, uniqueRows] = await sql.begin(
    'isolation level repeatable read read only',
    (sql) =>
      Promise.all([
        sql<{ version: string }[]>`select version::text from system.schema_version`,
        sql<
          {
            schema: string;
            table: string;
            kind: string;
            column: string | null;
            type: string | null;
            nullable: boolean;
            hasDefault: boolean;
            defaultSql: string | null;
            position: number;
            isPk: boolean;
          }[]
        >`
      select n.nspname as schema, c.relname as table, c.relkind as kind,
             a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
             not a.attnotnull as nullable, a.atthasdef as "hasDefault", a.attnum as position,
             coalesce(pg_get_expr(d.adbin, d.adrelid), ty.typdefault) as "defaultSql",
             coalesce(a.attnum = any(pk.conkey), false) as "isPk"
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      left join pg_type ty on ty.oid = a.atttypid and ty.typtype = 'd'
      left join pg_constraint pk on pk.conrelid = c.oid and pk.contype = 'p'
      where n.nspname = any(${schemas}) and c.relkind in ('r', 'p', 'v', 'm', 'f')
      order by n.nspname, c.relname, a.attnum`,
        sql<ForeignKey[]>`
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
        sql<RoutineRow[]>`
      select n.nspname as schema, p.proname as name,
             coalesce(p.proargnames, '{}')::text[] as "argNames",
             array(select format_type(a.t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality a(t, i) order by a.i)::text[] as "argTypes",
             p.proargmodes::text[] as "argModes",
             p.pronargdefaults as "argDefaults", p.proretset as "returnsSet",
             (t.typtype = 'c' or p.prorettype = 'record'::regtype) as "returnsRows",
             p.provolatile = 'v' as volatile,
             format_type(p.prorettype, null) as "returnType",
             p.prorettype = 'void'::regtype as "returnsVoid",
             rn.nspname as "returnSchema", rc.relname as "returnRelation",
             (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) order by a.attnum)
                from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped) as "compositeColumns"
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
      left join pg_class rc on rc.oid = t.typrelid and rc.relkind in ('r', 'p', 'v', 'm', 'f')
      left join pg_namespace rn on rn.oid = rc.relnamespace
      where n.nspname = any(${schemas}) and p.prokind = 'f'`,
        sql<{ schema: string; table: string; columns: string[] }[]>`
      select n.nspname as schema, c.relname as table,
             array(select a.attname from unnest(con.conkey) k(attnum)
                   join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum)::text[] as columns
      from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
      where con.contype in ('p', 'u') and n.nspname = any(${schemas})`,
      ]),
  );

  const tables = new Map<string, Table>();
  for (const row of columnRows) {
    const key = qualified(row.schema, row.table);
    let table = tables.get(key);
    if (!table) {
      table = {
        schema: row.schema,
        name: row.table,
        kind: row.kind === 'v' || row.kind === 'm' ? 'view' : 'table',
        columns: new Map(),
        primaryKey: [],
        uniqueKeys: [],
      };
      tables.set(key, table);
    }
    if (row.column && row.type) {
      const column: Column = {
        name: row.column,
        type: row.type,
        nullable: row.nullable,
        hasDefault: row.hasDefault || row.defaultSql !== null,
      };
      if (row.defaultSql !== null) column.defaultSql = row.defaultSql;
      table.columns.set(row.column, column);
      if (row.isPk) table.primaryKey.push(row.column);
    }
  }
  for (const u of uniqueRows) tables.get(qualified(u.schema, u.table))?.uniqueKeys.push(u.columns);
  const routines = new Map<string, Routine[]>();
  for (const r of routineRows) {
    const routine = routineOf(r);
    const key = qualified(r.schema, r.name);
    routines.set(key, [...(routines.get(key) ?? []), routine]);
  }
  return { version: versionRows[0]?.version ?? '0', schemas, tables, foreignKeys: keyRows, routines };
}

interface RoutineRow {
  schema: string;
  name: string;
  /** Names of all parameters (IN and OUT), '' where unnamed. */
  argNames: string[];
  /** Types of all parameters (IN and OUT). */
  argTypes: string[];
  /** i, o, b (INOUT), v (VARIADIC), t (TABLE); null when all are IN. */
  argModes: string[] | null;
  argDefaults: number;
  returnsSet: boolean;
  returnsRows: boolean;
  volatile: boolean;
  returnType: string;
  returnsVoid: boolean;
  returnSchema: string | null;
  returnRelation: string | null;
  compositeColumns: { name: string; type: string }[] | null;
}

function routineOf(r: RoutineRow): Routine {
  const params = r.argTypes.map((type, i) => ({ name: r.argNames[i] ?? '', type, mode: r.argModes?.[i] ?? 'i' }));
  const inputs = params.filter((p) => p.mode === 'i' || p.mode === 'b' || p.mode === 'v');
  const outputs = params.filter((p) => p.mode === 'o' || p.mode === 'b' || p.mode === 't');
  const column = (c: { name: string; type: string }): Column => ({
    name: c.name,
    type: c.type,
    nullable: true,
    hasDefault: false,
  });
  return {
    schema: r.schema,
    name: r.name,
    // Defaults belong to the last input parameters.
    args: inputs.map((p, i) => ({
      name: p.name,
      type: p.type,
      hasDefault: i >= inputs.length - r.argDefaults,
      variadic: p.mode === 'v',
    })),
    returnsSet: r.returnsSet,
    returnsRows: r.returnsRows,
    volatile: r.volatile,
    returnType: r.returnType,
    returnsVoid: r.returnsVoid,
    columns: (outputs.length > 0 ? outputs : (r.compositeColumns ?? [])).map(column),
    returnTable: r.returnSchema && r.returnRelation ? { schema: r.returnSchema, name: r.returnRelation } : undefined,
  };
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
      const before = snapshot;
      const [row] = await sql<{ version: string }[]>`select version::text from system.schema_version`;
      if (!row) return false;
      // A reload (after a NOTIFY) may have replaced the snapshot while the version was read.
      if (row.version === snapshot.version) return snapshot !== before;
      // A reload already under way may have read the catalog before this version: wait for it,
      // then reload again until the snapshot is at least as new as what was seen.
      for (let tries = 0; tries < 3 && BigInt(snapshot.version) < BigInt(row.version); tries++) await reload();
      return true;
    },
    reload,
    close: () => listener.unlisten(),
  };
}
