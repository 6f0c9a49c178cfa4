// SQL of bulk upserts: the target table's column types, and one INSERT … SELECT per group of
// records with the same columns, its rows sent as one JSON parameter and every value cast from
// text to its column's type (as a client sending text parameters would have them converted).
import type { Conn } from './admin-transaction.js';
import { quoteIdent } from './table-ddl.js';

/** Column name → format_type() of `schema.table` (empty when the table does not exist). */
export async function columnTypes(conn: Conn, schema: string, table: string): Promise<Map<string, string>> {
  const rows = await conn<{ name: string; type: string }[]>`
    select a.attname as name, format_type(a.atttypid, a.atttypmod) as type
    from pg_attribute a
    where a.attrelid = to_regclass(quote_ident(${schema}) || '.' || quote_ident(${table}))
      and a.attnum > 0 and not a.attisdropped`;
  return new Map(rows.map((r) => [r.name, r.type]));
}

export interface InsertGroup {
  schema: string;
  table: string;
  columns: { name: string; type: string }[];
  /** Each row's values in column order, as text (null for SQL NULL). */
  rows: (string | null)[][];
  upsertKey?: string;
}

/** Inserts (or upserts on `upsertKey`) one group; the number of rows written. */
export async function insertGroup(conn: Conn, g: InsertGroup): Promise<number> {
  const names = g.columns.map((c) => quoteIdent(c.name));
  const fields = g.columns.map((_, i) => `x.f${i}::${g.columns[i]!.type}`);
  const recordType = g.columns.map((_, i) => `f${i} text`).join(', ');
  const objects = g.rows.map((r) => Object.fromEntries(r.map((v, i) => [`f${i}`, v])));
  let conflict = '';
  if (g.upsertKey !== undefined) {
    const others = g.columns.filter((c) => c.name !== g.upsertKey).map((c) => quoteIdent(c.name));
    conflict =
      others.length === 0
        ? ` on conflict (${quoteIdent(g.upsertKey)}) do nothing`
        : ` on conflict (${quoteIdent(g.upsertKey)}) do update set ${others.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  }
  const result = await conn.unsafe(
    `insert into ${quoteIdent(g.schema)}.${quoteIdent(g.table)} (${names.join(', ')})
     select ${fields.join(', ')} from jsonb_to_recordset($1::text::jsonb) as x(${recordType})${conflict}`,
    [JSON.stringify(objects)],
  );
  return result.count;
}
