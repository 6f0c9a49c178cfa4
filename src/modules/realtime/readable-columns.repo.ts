// SQL of column privileges for row changes: which columns of a table each role may SELECT, as
// PostgreSQL decides it for that role (table and column GRANTs, PUBLIC and inherited roles).
import type { Queryable } from '../../core/db.js';

export async function readableColumns(
  db: Queryable,
  table: string,
  roles: string[],
): Promise<{ role: string; columns: string[] }[]> {
  return db<{ role: string; columns: string[] }[]>`
    select r.role, coalesce(array_agg(a.attname::text order by a.attnum) filter (where a.attnum is not null), '{}') as columns
    from unnest(${roles}::text[]) as r (role)
    left join pg_attribute a on a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped
      and has_column_privilege(r.role, a.attrelid, a.attnum, 'SELECT')
    group by r.role`;
}
