// Reads one public table's schema from the catalog: its columns with type, nullability, key,
// uniqueness, default, enum labels and single-column foreign key, and whether row-level security is on.
import type { Queryable } from '../../core/db.js';
import type { ColumnInfo, TableSchema } from './table-admin.schemas.js';

const ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/** The table's oid and RLS flag, or undefined when public has no base table of that name. */
export async function findTable(
  db: Queryable,
  name: string,
): Promise<{ oid: number; rlsEnabled: boolean } | undefined> {
  const [row] = await db<{ oid: number; rlsEnabled: boolean }[]>`
    select c.oid::int as oid, c.relrowsecurity as "rlsEnabled"
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relname = ${name} and c.relkind in ('r', 'p')`;
  return row;
}

interface ColumnRow extends Omit<ColumnInfo, 'foreignKey'> {
  referenceTable: string | null;
  referenceColumn: string | null;
  onDelete: string | null;
  onUpdate: string | null;
}

export async function readColumns(db: Queryable, oid: number): Promise<ColumnInfo[]> {
  const rows = await db<ColumnRow[]>`
    select a.attname as "columnName", format_type(a.atttypid, a.atttypmod) as type,
           not a.attnotnull as "isNullable",
           exists (select 1 from pg_constraint p where p.conrelid = a.attrelid and p.contype = 'p' and a.attnum = any(p.conkey)) as "isPrimaryKey",
           exists (select 1 from pg_constraint u where u.conrelid = a.attrelid and u.contype in ('u', 'p') and u.conkey = array[a.attnum]) as "isUnique",
           pg_get_expr(d.adbin, d.adrelid) as "defaultValue",
           (select array_agg(e.enumlabel::text order by e.enumsortorder) from pg_enum e where e.enumtypid = a.atttypid) as "enumValues",
           case when rn.nspname = 'public' then rc.relname else rn.nspname || '.' || rc.relname end as "referenceTable",
           ra.attname as "referenceColumn", fk.confdeltype::text as "onDelete", fk.confupdtype::text as "onUpdate"
    from pg_attribute a
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    left join lateral (
      select * from pg_constraint f
      where f.conrelid = a.attrelid and f.contype = 'f' and f.conkey = array[a.attnum] order by f.conname limit 1
    ) fk on true
    left join pg_class rc on rc.oid = fk.confrelid
    left join pg_namespace rn on rn.oid = rc.relnamespace
    left join pg_attribute ra on ra.attrelid = fk.confrelid and ra.attnum = fk.confkey[1]
    where a.attrelid = ${oid} and a.attnum > 0 and not a.attisdropped
    order by a.attnum`;
  return rows.map(({ referenceTable, referenceColumn, onDelete, onUpdate, ...column }) => ({
    ...column,
    foreignKey:
      referenceTable && referenceColumn
        ? {
            referenceTable,
            referenceColumn,
            onDelete: ACTIONS[onDelete ?? 'a'] ?? 'NO ACTION',
            onUpdate: ACTIONS[onUpdate ?? 'a'] ?? 'NO ACTION',
          }
        : null,
  }));
}

export async function readTableSchema(db: Queryable, name: string): Promise<TableSchema | undefined> {
  const table = await findTable(db, name);
  if (!table) return undefined;
  return { tableName: name, rlsEnabled: table.rlsEnabled, columns: await readColumns(db, table.oid) };
}

/** Names of the foreign-key constraints on exactly these columns of a table. */
export async function foreignKeysOn(db: Queryable, oid: number, column: string): Promise<string[]> {
  const rows = await db<{ name: string }[]>`
    select f.conname as name from pg_constraint f
    join pg_attribute a on a.attrelid = f.conrelid and a.attname = ${column}
    where f.conrelid = ${oid} and f.contype = 'f' and f.conkey = array[a.attnum]`;
  return rows.map((r) => r.name);
}

/** Whether the table has a foreign-key constraint of this name. */
export async function hasForeignKeyNamed(db: Queryable, oid: number, name: string): Promise<boolean> {
  const [row] = await db`select 1 from pg_constraint where conrelid = ${oid} and contype = 'f' and conname = ${name}`;
  return row !== undefined;
}

export async function hasPolicy(db: Queryable, table: string, policy: string): Promise<boolean> {
  const [row] =
    await db`select 1 from pg_policies where schemaname = 'public' and tablename = ${table} and policyname = ${policy}`;
  return row !== undefined;
}
