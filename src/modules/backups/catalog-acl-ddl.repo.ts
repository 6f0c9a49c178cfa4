// The privileges on the user schemas' objects (relations, their columns, sequences, routines,
// types, schemas) read from their ACLs, as GRANT statements for a backup and as REVOKE statements
// that clear what a restore's freshly created objects got by default. Owners' own privileges are
// implied and left out. Also the default privileges of the user schemas.
import type { Queryable } from '../../core/db.js';
import { HELD_ROUTINE, NOT_EXTENSION_MEMBER, OWN_OBJECT } from './catalog-ddl.repo.js';

interface Privilege {
  privileges: string;
  /** e.g. `TABLE public.t`; `columns` narrows it. */
  target: string;
  columns: string | null;
  grantee: string;
  grantable: boolean;
}

async function privileges(db: Queryable, schemas: string[]): Promise<Privilege[]> {
  return db.unsafe<Privilege[]>(
    `with acl as (
       select case c.relkind when 'S' then 'SEQUENCE' else 'TABLE' end || ' ' || c.oid::regclass::text as target,
              null::text as columns, g.grantee, g.privilege_type, g.is_grantable
         from pg_class c join pg_namespace n on n.oid = c.relnamespace, aclexplode(c.relacl) g
        where c.relkind in ('r', 'p', 'v', 'm', 'S') and n.nspname = any($1) and g.grantee <> c.relowner
          and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}
       union all
       select 'TABLE ' || c.oid::regclass::text, quote_ident(a.attname), g.grantee, g.privilege_type, g.is_grantable
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
         join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attacl is not null,
              aclexplode(a.attacl) g
        where c.relkind in ('r', 'p', 'v', 'm') and n.nspname = any($1) and g.grantee <> c.relowner
          and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}
       union all
       select case p.prokind when 'p' then 'PROCEDURE ' when 'a' then 'ROUTINE ' else 'FUNCTION ' end || p.oid::regprocedure::text, null,
              g.grantee, g.privilege_type, g.is_grantable
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace,
              aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) g
        where n.nspname = any($1) and ${HELD_ROUTINE('p')} and g.grantee <> p.proowner
          and ${OWN_OBJECT('pg_proc', 'p.oid')}
       union all
       select 'TYPE ' || t.oid::regtype::text, null, g.grantee, g.privilege_type, g.is_grantable
         from pg_type t join pg_namespace n on n.oid = t.typnamespace,
              aclexplode(coalesce(t.typacl, acldefault('T', t.typowner))) g
        where n.nspname = any($1) and g.grantee <> t.typowner and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
          and (t.typtype in ('e', 'd', 'r') or (t.typtype = 'c' and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'))
       union all
       select 'SCHEMA ' || quote_ident(n.nspname), null, g.grantee, g.privilege_type, g.is_grantable
         from pg_namespace n, aclexplode(n.nspacl) g
        where n.nspname = any($1) and n.nspname <> 'public' and g.grantee <> n.nspowner)
     select string_agg(privilege_type, ', ' order by privilege_type) as privileges, target, columns,
            case when grantee = 0 then 'PUBLIC' else quote_ident(pg_get_userbyid(grantee)) end as grantee,
            is_grantable as grantable
       from acl group by target, columns, grantee, is_grantable order by target, columns nulls first, grantee`,
    [schemas],
  );
}

const onWhat = (p: Privilege) =>
  p.columns
    ? `${p.privileges.replace(/(^|, )([A-Z]+)/g, `$1$2 (${p.columns})`)} ON ${p.target}`
    : `${p.privileges} ON ${p.target}`;

/** The privileges of each relation, column, routine, type and schema, one GRANT per grantee. */
export async function grantDdl(db: Queryable, schemas: string[]): Promise<string[]> {
  return (await privileges(db, schemas)).map(
    (p) => `GRANT ${onWhat(p)} TO ${p.grantee}${p.grantable ? ' WITH GRANT OPTION' : ''}`,
  );
}

/** Every privilege now held on the user schemas' objects, as REVOKEs (so a restore grants exactly the backup's). */
export async function revokeAllDdl(db: Queryable, schemas: string[]): Promise<string[]> {
  return (await privileges(db, schemas)).map((p) => `REVOKE ${onWhat(p)} FROM ${p.grantee} CASCADE`);
}

/** The default privileges set for the user schemas other than public (public's are the platform's). */
export async function defaultPrivilegeDdl(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db.unsafe<{ ddl: string }[]>(
    `select format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA %I GRANT %s ON %s TO %s%s', pg_get_userbyid(a.defaclrole),
              n.nspname, string_agg(g.privilege_type, ', ' order by g.privilege_type),
              case a.defaclobjtype when 'r' then 'TABLES' when 'S' then 'SEQUENCES' when 'f' then 'FUNCTIONS'
                                   when 'T' then 'TYPES' else 'SCHEMAS' end,
              case when g.grantee = 0 then 'PUBLIC' else quote_ident(pg_get_userbyid(g.grantee)) end,
              case when g.is_grantable then ' WITH GRANT OPTION' else '' end) as ddl
       from pg_default_acl a join pg_namespace n on n.oid = a.defaclnamespace, aclexplode(a.defaclacl) g
      where n.nspname = any($1) and n.nspname <> 'public'
      group by a.oid, a.defaclrole, n.nspname, a.defaclobjtype, g.grantee, g.is_grantable
      order by a.oid, g.grantee`,
    [schemas],
  );
  return rows.map((r) => r.ddl);
}
