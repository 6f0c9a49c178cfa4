// Which tables a backup copies, with their copyable columns (generated columns are recomputed),
// parents before children along foreign keys so system rows load with their constraints on.
import type { Queryable } from '../../core/db.js';

export interface CopyTable {
  /** Schema-qualified, quoted. */
  name: string;
  /** Quoted column names. */
  columns: string[];
  /** Quoted names of the tables this one references (itself excluded). */
  references: string[];
}

/** Ordinary tables of `schemas`, minus `exclude` ("schema.table" names, unquoted, or "schema.*"). */
export async function copyTables(db: Queryable, schemas: string[], exclude: string[]): Promise<CopyTable[]> {
  const rows = await db.unsafe<{ name: string; columns: string[]; references: string[] | null }[]>(
    `select format('%I.%I', n.nspname, c.relname) as name,
            array(select quote_ident(a.attname) from pg_attribute a
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                   order by a.attnum) as columns,
            array(select distinct k.confrelid::regclass::text from pg_constraint k
                   where k.conrelid = c.oid and k.contype = 'f' and k.confrelid <> c.oid) as references
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname = any($1) and not (n.nspname || '.' || c.relname = any($2))
        and not (n.nspname || '.*' = any($2))
        and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')
      order by c.oid`,
    [schemas, exclude],
  );
  return parentsFirst(rows.map((r) => ({ name: r.name, columns: r.columns, references: r.references ?? [] })));
}

/** A topological order along references (foreign keys, a view's tables); cycles keep their catalog order. */
export function parentsFirst<T extends { name: string; references: string[] }>(tables: T[]): T[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: T[] = [];
  const visit = (t: T) => {
    if (done.has(t.name) || visiting.has(t.name)) return;
    visiting.add(t.name);
    for (const ref of t.references) {
      const parent = byName.get(ref);
      if (parent) visit(parent);
    }
    visiting.delete(t.name);
    done.add(t.name);
    ordered.push(t);
  };
  for (const t of tables) visit(t);
  return ordered;
}

/** Every schema that is neither PostgreSQL's own nor in `platform`. */
export async function userSchemas(db: Queryable, platform: string[]): Promise<string[]> {
  const rows = await db<{ nspname: string }[]>`
    select nspname from pg_namespace
     where nspname not like 'pg\\_%' and nspname <> 'information_schema' and nspname <> all(${platform})
     order by oid`;
  return rows.map((r) => r.nspname);
}
