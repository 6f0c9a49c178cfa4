// The restore's first step: statements that drop every object of the user schemas as they are
// now (schemas other than public whole; in public each relation, routine, type and extension),
// so that only what the backup holds exists afterwards. Extensions the backup also holds are kept
// (creating one again may need rights the server's role lacks).
import type { Queryable } from '../../core/db.js';
import { HELD_ROUTINE, NOT_EXTENSION_MEMBER, OWN_OBJECT, texts, type Rows } from './catalog-ddl.repo.js';

export async function dropUserObjectsDdl(
  db: Queryable,
  schemas: string[],
  keepExtensions: string[],
): Promise<string[]> {
  return texts(
    await db.unsafe<Rows>(
      `select ddl from (
         select 0 as ord, format('DROP SCHEMA IF EXISTS %I CASCADE', n.nspname) as ddl
           from pg_namespace n where n.nspname = any($1) and n.nspname <> 'public'
         union all
         select 1, format('DROP %s IF EXISTS %s CASCADE',
                  case c.relkind when 'v' then 'VIEW' when 'm' then 'MATERIALIZED VIEW' when 'S' then 'SEQUENCE'
                                 else 'TABLE' end,
                  c.oid::regclass)
           from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')
            and ${OWN_OBJECT('pg_class', 'c.oid')}
         union all
         select 2, format('DROP ROUTINE IF EXISTS %s CASCADE', p.oid::regprocedure)
           from pg_proc p where p.pronamespace = 'public'::regnamespace and ${HELD_ROUTINE('p')}
            and ${OWN_OBJECT('pg_proc', 'p.oid')}
         union all
         select 3, format('DROP TYPE IF EXISTS %s CASCADE', t.oid::regtype)
           from pg_type t where t.typnamespace = 'public'::regnamespace and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
            and (t.typtype in ('e', 'd', 'r') or (t.typtype = 'c' and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'))
         union all
         select 4, format('DROP EXTENSION IF EXISTS %I CASCADE', e.extname)
           from pg_extension e where e.extnamespace = 'public'::regnamespace and e.extname <> all($2)
       ) x order by ord`,
      [schemas, keepExtensions],
    ),
  );
}
