// The user schemas' objects that come after the rows are copied, read back as DDL from the
// catalogs: sequence ownership, column defaults, constraints (keys and checks, then indexes and
// their partition attachments, then foreign keys), extended statistics, triggers, rules, row-level security, policies,
// comments, materialized view data and sequence positions. Grants are in catalog-acl-ddl.repo.ts.
import type { Queryable } from '../../core/db.js';
import {
  HELD_ROUTINE,
  NOT_EXTENSION_MEMBER,
  USER_RELATIONS,
  USER_TABLES,
  VIEW_REFERENCES,
  texts,
  type Rows,
} from './catalog-ddl.repo.js';
import { parentsFirst } from './table-data.repo.js';

const ddlOf = async (db: Queryable, schemas: string[], query: string) => texts(await db.unsafe<Rows>(query, [schemas]));

export const sequenceOwnershipDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER SEQUENCE %s OWNED BY %s.%I', d.objid::regclass, d.refobjid::regclass, a.attname) as ddl
       from pg_depend d
       join pg_class s on s.oid = d.objid and s.relkind = 'S'
       join pg_namespace n on n.oid = s.relnamespace
       join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
      where d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass
        and d.deptype = 'a' and n.nspname = any($1)`,
  );

/** Each table's own column defaults (ONLY: a partition's may differ from its parent's). */
export const columnDefaultDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER TABLE ONLY %s ALTER COLUMN %I SET DEFAULT %s', c.oid::regclass, a.attname,
              pg_get_expr(ad.adbin, ad.adrelid)) as ddl
       from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       join pg_attrdef ad on ad.adrelid = c.oid and ad.adnum = a.attnum
      where c.oid in (${USER_TABLES}) and a.attgenerated = '' order by c.oid, a.attnum`,
  );

/**
 * Primary keys, unique, exclusion and check constraints. Keys are added to each table ONLY (a
 * partitioned table's to every partition, then attached with indexAttachDdl); checks a partition
 * inherits come with its parent's.
 */
export const keyAndCheckConstraintDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER TABLE %s%s ADD CONSTRAINT %I %s', case when k.contype = 'c' then '' else 'ONLY ' end,
              k.conrelid::regclass, k.conname, pg_get_constraintdef(k.oid)) as ddl
       from pg_constraint k
      where k.conrelid in (${USER_TABLES}) and (k.contype in ('p', 'u', 'x') or (k.contype = 'c' and k.conislocal))
      order by k.conrelid, k.contype, k.conname`,
  );

/** Foreign keys, last (a partition's copies of its parent's come with the parent's). */
export const foreignKeyDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER TABLE %s ADD CONSTRAINT %I %s', k.conrelid::regclass, k.conname, pg_get_constraintdef(k.oid)) as ddl
       from pg_constraint k
      where k.conrelid in (${USER_TABLES}) and k.contype = 'f' and k.conparentid = 0
      order by k.conrelid, k.conname`,
  );

/** Indexes that no constraint owns (a partitioned table's ON ONLY itself). */
export const indexDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select pg_get_indexdef(i.indexrelid) as ddl
       from pg_index i where i.indrelid in (${USER_RELATIONS(`'r', 'p', 'm'`)})
        and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u', 'x'))
      order by i.indexrelid`,
  );

/** Each partition's index attached to its partitioned table's (constraint indexes included). */
export const indexAttachDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER INDEX %s ATTACH PARTITION %s', h.inhparent::regclass, h.inhrelid::regclass) as ddl
       from pg_inherits h join pg_index i on i.indexrelid = h.inhrelid
      where i.indrelid in (${USER_TABLES}) order by h.inhparent, h.inhrelid`,
  );

/** Extended statistics objects. */
export const statisticsDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select pg_get_statisticsobjdef(s.oid) as ddl from pg_statistic_ext s
      where s.stxrelid in (${USER_RELATIONS(`'r', 'p', 'm'`)}) order by s.oid`,
  );

/** Triggers of tables and views (a partition's copies of its parent's come with the parent's). */
export const triggerDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select pg_get_triggerdef(t.oid) || case t.tgenabled
              when 'D' then format('; ALTER TABLE %s DISABLE TRIGGER %I', t.tgrelid::regclass, t.tgname)
              when 'R' then format('; ALTER TABLE %s ENABLE REPLICA TRIGGER %I', t.tgrelid::regclass, t.tgname)
              when 'A' then format('; ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', t.tgrelid::regclass, t.tgname)
              else '' end as ddl
       from pg_trigger t
      where not t.tgisinternal and t.tgparentid = 0 and t.tgrelid in (${USER_RELATIONS(`'r', 'p', 'v', 'm'`)})
      order by t.oid`,
  );

/** Rules other than the ones that make views. */
export const ruleDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select pg_get_ruledef(r.oid) as ddl from pg_rewrite r
      where r.rulename <> '_RETURN' and r.ev_class in (${USER_RELATIONS(`'r', 'p', 'v', 'm'`)}) order by r.oid`,
  );

/** Row-level security exactly as it was (new tables in public get it switched on by an event trigger). */
export const rowSecurityDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('ALTER TABLE %s %s ROW LEVEL SECURITY, %s ROW LEVEL SECURITY', c.oid::regclass,
              case when c.relrowsecurity then 'ENABLE' else 'DISABLE' end,
              case when c.relforcerowsecurity then 'FORCE' else 'NO FORCE' end) as ddl
       from pg_class c where c.oid in (${USER_TABLES}) order by c.oid`,
  );

export const policyDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE POLICY %I ON %s AS %s FOR %s TO %s%s%s', p.polname, p.polrelid::regclass,
              case when p.polpermissive then 'PERMISSIVE' else 'RESTRICTIVE' end,
              case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
                            when 'd' then 'DELETE' else 'ALL' end,
              (select string_agg(case when r = 0 then 'PUBLIC' else quote_ident(pg_get_userbyid(r)) end, ', ')
                 from unnest(p.polroles) r),
              coalesce(' USING (' || pg_get_expr(p.polqual, p.polrelid) || ')', ''),
              coalesce(' WITH CHECK (' || pg_get_expr(p.polwithcheck, p.polrelid) || ')', '')) as ddl
       from pg_policy p where p.polrelid in (${USER_TABLES}) order by p.oid`,
  );

/** Every policy now on the user schemas' tables, as DROP POLICY statements. */
export const dropPoliciesDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('DROP POLICY %I ON %s', p.polname, p.polrelid::regclass) as ddl
       from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1)`,
  );

/** Comments on the user schemas and their objects (an extension's own come with it). */
export const commentDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `with described as (
       select format('SCHEMA %I', n.nspname) as target, pd.*
         from pg_description pd join pg_namespace n on pd.classoid = 'pg_namespace'::regclass and n.oid = pd.objoid
        where n.nspname = any($1) and n.nspname <> 'public'
       union all
       select case when pd.objsubid > 0 then format('COLUMN %s.%I', c.oid::regclass, a.attname)
                   else format('%s %s', case c.relkind when 'v' then 'VIEW' when 'm' then 'MATERIALIZED VIEW'
                     when 'S' then 'SEQUENCE' when 'i' then 'INDEX' when 'I' then 'INDEX' when 'c' then 'TYPE'
                     else 'TABLE' end, c.oid::regclass) end, pd.*
         from pg_description pd join pg_class c on pd.classoid = 'pg_class'::regclass and c.oid = pd.objoid
         join pg_namespace n on n.oid = c.relnamespace
         left join pg_attribute a on a.attrelid = c.oid and a.attnum = pd.objsubid and pd.objsubid > 0
        where n.nspname = any($1) and c.relkind <> 'f'
       union all
       select format('%s %s', case p.prokind when 'p' then 'PROCEDURE' when 'a' then 'AGGREGATE' else 'FUNCTION' end,
                p.oid::regprocedure), pd.*
         from pg_description pd join pg_proc p on pd.classoid = 'pg_proc'::regclass and p.oid = pd.objoid
         join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = any($1) and ${HELD_ROUTINE('p')}
       union all
       select format('%s %s', case t.typtype when 'd' then 'DOMAIN' else 'TYPE' end, t.oid::regtype), pd.*
         from pg_description pd join pg_type t on pd.classoid = 'pg_type'::regclass and t.oid = pd.objoid
         join pg_namespace n on n.oid = t.typnamespace
        where n.nspname = any($1)
       union all
       select case when k.conrelid <> 0 then format('CONSTRAINT %I ON %s', k.conname, k.conrelid::regclass)
                   else format('CONSTRAINT %I ON DOMAIN %s', k.conname, k.contypid::regtype) end, pd.*
         from pg_description pd join pg_constraint k on pd.classoid = 'pg_constraint'::regclass and k.oid = pd.objoid
         join pg_namespace n on n.oid = k.connamespace
        where n.nspname = any($1)
       union all
       select format('TRIGGER %I ON %s', t.tgname, t.tgrelid::regclass), pd.*
         from pg_description pd join pg_trigger t on pd.classoid = 'pg_trigger'::regclass and t.oid = pd.objoid
        where t.tgparentid = 0 and t.tgrelid in (${USER_RELATIONS(`'r', 'p', 'v', 'm'`)})
       union all
       select format('POLICY %I ON %s', p.polname, p.polrelid::regclass), pd.*
         from pg_description pd join pg_policy p on pd.classoid = 'pg_policy'::regclass and p.oid = pd.objoid
        where p.polrelid in (${USER_TABLES})
       union all
       select format('RULE %I ON %s', r.rulename, r.ev_class::regclass), pd.*
         from pg_description pd join pg_rewrite r on pd.classoid = 'pg_rewrite'::regclass and r.oid = pd.objoid
        where r.rulename <> '_RETURN' and r.ev_class in (${USER_RELATIONS(`'r', 'p', 'v', 'm'`)}))
     select format('COMMENT ON %s IS %L', target, description) as ddl from described pd
      where ${NOT_EXTENSION_MEMBER('pd.classoid', 'pd.objoid')}
      order by classoid, objoid, objsubid`,
  );

/** Materialized views that held data, refreshed each after the ones it reads. */
export async function refreshMaterializedViewDdl(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db.unsafe<{ name: string; ddl: string | null; references: string[] }[]>(
    `select c.oid::regclass::text as name,
            case when c.relkind = 'm' and c.relispopulated then format('REFRESH MATERIALIZED VIEW %s', c.oid::regclass) end as ddl,
            ${VIEW_REFERENCES} as references
       from pg_class c where c.oid in (${USER_RELATIONS(`'v', 'm'`)}) order by c.oid`,
    [schemas],
  );
  return parentsFirst(rows).flatMap((r) => (r.ddl ? [r.ddl] : []));
}

/** The sequence positions, as setval calls. */
export const sequencePositions = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('SELECT pg_catalog.setval(%L, %s, %s)', format('%I.%I', s.schemaname, s.sequencename),
              coalesce(s.last_value, s.start_value), (s.last_value is not null)::text) as ddl
       from pg_sequences s where s.schemaname = any($1)`,
  );
