// A normalized description of what the user schemas hold, read from pg_catalog: one line per
// object (or per column, constraint, grant, ...) naming it by schema-qualified name, never by oid,
// so a schema rebuilt by a restore describes the same as the original. Also every relation's rows
// as sorted JSON. Used to compare a project before a backup with the same project after restore.
import type { Sql } from '../../../src/core/db.js';

/** Objects of `schemas`, not part of an extension. */
const OWN = (classOid: string, oid: string) =>
  `not exists (select 1 from pg_depend d where d.classid = ${classOid} and d.objid = ${oid} and d.deptype = 'e')`;

const ACL = (acl: string) =>
  `coalesce((select string_agg(x, ',' order by x) from (select case when g.grantee = 0 then 'PUBLIC'
     else pg_get_userbyid(g.grantee) end || ':' || g.privilege_type || case when g.is_grantable then '*' else '' end as x
     from aclexplode(${acl}) g) acl), '-')`;

const QUERIES = [
  // Relations: kind, persistence, row-level security, options, partitioning, inheritance, grants.
  `select format('rel %s kind=%s persistence=%s rls=%s/%s options=%s partkey=%s bound=%s parents=%s populated=%s acl=%s',
          c.oid::regclass, c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity, c.reloptions,
          pg_get_partkeydef(c.oid), pg_get_expr(c.relpartbound, c.oid),
          (select string_agg(i.inhparent::regclass::text, ',' order by i.inhseqno) from pg_inherits i where i.inhrelid = c.oid),
          c.relispopulated, ${ACL('c.relacl')})
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1) and c.relkind <> 't' and ${OWN("'pg_class'::regclass", 'c.oid')}`,
  // Columns, by position among the live ones (a restore renumbers around dropped columns).
  `select format('col %s.%I #%s %s collate=%s notnull=%s identity=%s generated=%s default=%s acl=%s',
          c.oid::regclass, a.attname, row_number() over (partition by c.oid order by a.attnum),
          format_type(a.atttypid, a.atttypmod), a.attcollation::regcollation, a.attnotnull, a.attidentity,
          a.attgenerated, pg_get_expr(ad.adbin, ad.adrelid), ${ACL('a.attacl')})
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     left join pg_attrdef ad on ad.adrelid = c.oid and ad.adnum = a.attnum
    where n.nspname = any($1) and c.relkind in ('r', 'p', 'v', 'm', 'c', 'f') and ${OWN("'pg_class'::regclass", 'c.oid')}`,
  // Constraints of tables and domains.
  `select format('con %s %I %s local=%s inherited=%s validated=%s', coalesce(k.conrelid::regclass::text, k.contypid::regtype::text),
          k.conname, pg_get_constraintdef(k.oid), k.conislocal, k.coninhcount, k.convalidated)
     from pg_constraint k join pg_namespace n on n.oid = k.connamespace
    where n.nspname = any($1) and ${OWN("'pg_constraint'::regclass", 'k.oid')}
      and (k.conrelid = 0 or ${OWN("'pg_class'::regclass", 'k.conrelid')})`,
  `select format('idx %s %s valid=%s parent=%s', i.indexrelid::regclass, pg_get_indexdef(i.indexrelid), i.indisvalid,
          (select h.inhparent::regclass from pg_inherits h where h.inhrelid = i.indexrelid))
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1) and ${OWN("'pg_class'::regclass", 'i.indrelid')}`,
  `select format('trg %s %s enabled=%s', t.tgrelid::regclass, pg_get_triggerdef(t.oid), t.tgenabled)
     from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1) and not t.tgisinternal`,
  `select format('pol %s %I %s %s to=%s using=%s check=%s', p.polrelid::regclass, p.polname, p.polpermissive, p.polcmd,
          (select string_agg(x, ',' order by x) from (select case when r = 0 then 'PUBLIC' else pg_get_userbyid(r) end as x from unnest(p.polroles) r) roles),
          pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
     from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1)`,
  `select format('rule %s %s', r.ev_class::regclass, pg_get_ruledef(r.oid))
     from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1) and r.rulename <> '_RETURN'`,
  `select format('view %s %s', c.oid::regclass, pg_get_viewdef(c.oid))
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1) and c.relkind in ('v', 'm') and ${OWN("'pg_class'::regclass", 'c.oid')}`,
  `select format('fn %s kind=%s %s acl=%s', p.oid::regprocedure, p.prokind,
          case when p.prokind in ('f', 'p') then pg_get_functiondef(p.oid) else (select format('%s %s %s %s %s %s',
            a.aggkind, a.aggtransfn::regproc, a.aggtranstype::regtype, a.agginitval, a.aggfinalfn::regproc, a.aggcombinefn::regproc)
            from pg_aggregate a where a.aggfnoid = p.oid) end, ${ACL("coalesce(p.proacl, acldefault('f', p.proowner))")})
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = any($1) and ${OWN("'pg_proc'::regclass", 'p.oid')}`,
  `select format('type %s typtype=%s base=%s notnull=%s default=%s labels=%s range=%s acl=%s', t.oid::regtype, t.typtype,
          format_type(t.typbasetype, t.typtypmod), t.typnotnull, t.typdefault,
          (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid),
          (select format('%s %s', r.rngsubtype::regtype, r.rngsubdiff::regproc) from pg_range r where r.rngtypid = t.oid),
          ${ACL("coalesce(t.typacl, acldefault('T', t.typowner))")})
     from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where n.nspname = any($1) and t.typtype in ('e', 'd', 'c', 'r', 'm') and ${OWN("'pg_type'::regclass", 't.oid')}
      and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')`,
  `select format('seq %I.%I %s %s %s %s %s cycle=%s last=%s owned_by=%s', s.schemaname, s.sequencename, s.data_type,
          s.start_value, s.increment_by, s.min_value, s.max_value, s.cycle, s.last_value,
          (select format('%s.%s', d.refobjid::regclass, d.refobjsubid) from pg_depend d
            where d.classid = 'pg_class'::regclass and d.objid = format('%I.%I', s.schemaname, s.sequencename)::regclass
              and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')))
     from pg_sequences s where s.schemaname = any($1)`,
  `select format('stats %I.%I %s', n.nspname, s.stxname, pg_get_statisticsobjdef(s.oid))
     from pg_statistic_ext s join pg_namespace n on n.oid = s.stxnamespace where n.nspname = any($1)`,
  `select format('default acl %s %s %s', pg_get_userbyid(a.defaclrole), a.defaclobjtype, ${ACL('a.defaclacl')})
     from pg_default_acl a join pg_namespace n on n.oid = a.defaclnamespace where n.nspname = any($1)`,
  `select format('ext %s schema=%s', e.extname, e.extnamespace::regnamespace)
     from pg_extension e join pg_namespace n on n.oid = e.extnamespace where n.nspname = any($1)`,
  `select format('schema %I acl=%s', n.nspname, ${ACL('n.nspacl')}) from pg_namespace n where n.nspname = any($1) and n.nspname <> 'public'`,
  `select format('comment %s: %s', pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description)
     from pg_description d, pg_identify_object(d.classoid, d.objoid, d.objsubid) o
    where (o.schema = any($1) or (d.classoid = 'pg_namespace'::regclass and o.identity = any($1)))
      and not exists (select 1 from pg_depend x where x.classid = d.classoid and x.objid = d.objoid and x.deptype = 'e')`,
];

/** Every line describing `schemas`, sorted. */
export async function describeCatalog(sql: Sql, schemas: string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const q of QUERIES) {
    const rows = await sql.unsafe<{ format: string }[]>(q, [schemas]);
    lines.push(...rows.map((r) => r.format));
  }
  return lines.sort();
}

/** Every table's and materialized view's rows as JSON, sorted (partitioned tables through their parents). */
export async function describeData(sql: Sql, schemas: string[]): Promise<Record<string, string[]>> {
  const relations = await sql<{ name: string }[]>`
    select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any(${schemas}) and c.relkind in ('r', 'p', 'm') and c.relispopulated
       and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')`;
  const data: Record<string, string[]> = {};
  for (const { name } of relations) {
    const rows = await sql.unsafe<{ row: string }[]>(`select to_jsonb(t)::text as row from ${name} t`);
    data[name] = rows.map((r) => r.row).sort();
  }
  return data;
}
