// The user schemas' objects that must exist before their rows are copied, read back as DDL from
// the catalogs (PostgreSQL's own pg_get_*def functions where they exist). Run with search_path =
// pg_catalog so every name comes out schema-qualified. `schemas` is the list of user schemas;
// extension members are left out (they come back with CREATE EXTENSION). Column defaults,
// constraints, indexes and the rest come after the data (catalog-post-ddl.repo.ts).
import type { Queryable } from '../../core/db.js';
import { parentsFirst } from './table-data.repo.js';

export type Rows = { ddl: string }[];
export const texts = (rows: Rows) => rows.map((r) => r.ddl);

/**
 * The object `oid` of the catalog `catalog` (a name, or an expression giving its oid) is not part
 * of an extension. Naming the catalog lets pg_depend's index find the rows.
 */
export const NOT_EXTENSION_MEMBER = (catalog: string, oid: string) =>
  `not exists (select 1 from pg_depend d where d.classid = ${catalogOid(catalog)} and d.objid = ${oid}
     and d.objsubid = 0 and d.deptype = 'e')`;

const catalogOid = (catalog: string) => (catalog.startsWith('pg_') ? `'${catalog}'::regclass` : catalog);

/** Neither part of an extension nor made with another object (an identity sequence, a range type's constructors). */
export const OWN_OBJECT = (catalog: string, oid: string) =>
  `not exists (select 1 from pg_depend d where d.classid = ${catalogOid(catalog)} and d.objid = ${oid}
     and d.objsubid = 0 and d.deptype in ('e', 'i'))`;

/** The routine `p` is one a backup holds: a function, a procedure or a plain aggregate. */
export const HELD_ROUTINE = (p: string) => `(${p}.prokind in ('f', 'p') or (${p}.prokind = 'a'
  and exists (select 1 from pg_aggregate a where a.aggfnoid = ${p}.oid and a.aggkind = 'n')))`;

/** Relations of the user schemas of the given kinds (pg_class.relkind), not extension members. */
export const USER_RELATIONS = (
  kinds: string,
) => `select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in (${kinds}) and n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}`;
export const USER_TABLES = USER_RELATIONS(`'r', 'p'`);

/** A column's COLLATE clause when it differs from its type's (`a` is pg_attribute, `at` its pg_type). */
const COLLATE = `case when a.attcollation <> 0 and a.attcollation <> at.typcollation
  then ' COLLATE ' || a.attcollation::regcollation::text else '' end`;

/** The options of the pg_sequence row `s` (but its type: an identity column's is the column's). */
const SEQUENCE_OPTIONS = `format('INCREMENT BY %s MINVALUE %s MAXVALUE %s START WITH %s CACHE %s%s', s.seqincrement, s.seqmin, s.seqmax, s.seqstart, s.seqcache,
  case when s.seqcycle then ' CYCLE' else ' NO CYCLE' end)`;

const ddlOf = async (db: Queryable, schemas: string[], query: string) => texts(await db.unsafe(query, [schemas]));

/** The user schemas other than public, to create before anything else. */
export const schemaDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE SCHEMA IF NOT EXISTS %I', n.nspname) as ddl
       from pg_namespace n where n.nspname = any($1) and n.nspname <> 'public' order by n.oid`,
  );

export const extensionDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA %I', e.extname, n.nspname) as ddl
       from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where n.nspname = any($1) order by e.oid`,
  );

/**
 * Enums, composite types and domains (bare: their checks and defaults may call functions, so
 * they come with domainConstraintDdl), in creation order.
 */
export const typeDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select case t.typtype
              when 'e' then format('CREATE TYPE %s AS ENUM (%s)', t.oid::regtype,
                (select string_agg(quote_literal(e.enumlabel), ', ' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid))
              when 'c' then format('CREATE TYPE %s AS (%s)', t.oid::regtype,
                (select string_agg(format('%I %s%s', a.attname, format_type(a.atttypid, a.atttypmod), ${COLLATE}), ', ' order by a.attnum)
                   from pg_attribute a join pg_type at on at.oid = a.atttypid
                  where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped))
              else format('CREATE DOMAIN %s AS %s%s', t.oid::regtype, format_type(t.typbasetype, t.typtypmod),
                case when t.typcollation <> 0 and t.typcollation <> (select b.typcollation from pg_type b where b.oid = t.typbasetype)
                     then ' COLLATE ' || t.typcollation::regcollation::text else '' end)
            end as ddl
       from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
        and (t.typtype in ('e', 'd') or (t.typtype = 'c' and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'))
      order by t.oid`,
  );

/** Range types (after the functions: their subtype_diff may be a user function). */
export const rangeTypeDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE TYPE %s AS RANGE (SUBTYPE = %s, MULTIRANGE_TYPE_NAME = %s%s%s%s)', t.oid::regtype,
              format_type(r.rngsubtype, null), r.rngmultitypid::regtype,
              case when r.rngsubopc <> 0 then format(', SUBTYPE_OPCLASS = %I.%I', opn.nspname, opc.opcname) else '' end,
              case when r.rngcollation <> 0 then ', COLLATION = ' || r.rngcollation::regcollation::text else '' end,
              case when r.rngsubdiff <> 0 then ', SUBTYPE_DIFF = ' || r.rngsubdiff::regproc::text else '' end) as ddl
       from pg_range r join pg_type t on t.oid = r.rngtypid join pg_namespace n on n.oid = t.typnamespace
       left join pg_opclass opc on opc.oid = r.rngsubopc left join pg_namespace opn on opn.oid = opc.opcnamespace
      where n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
      order by t.oid`,
  );

/** Domains' defaults, NOT NULL and checks (after the functions they may call, before the tables). */
export const domainConstraintDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select ddl from (
       select t.oid, 0 as ord, format('ALTER DOMAIN %s SET DEFAULT %s', t.oid::regtype, pg_get_expr(t.typdefaultbin, 0)) as ddl
         from pg_type t join pg_namespace n on n.oid = t.typnamespace
        where t.typtype = 'd' and t.typdefault is not null and n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
       union all
       select t.oid, 1, format('ALTER DOMAIN %s SET NOT NULL', t.oid::regtype)
         from pg_type t join pg_namespace n on n.oid = t.typnamespace
        where t.typtype = 'd' and t.typnotnull and n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
       union all
       select t.oid, 2, format('ALTER DOMAIN %s ADD CONSTRAINT %I %s', t.oid::regtype, k.conname, pg_get_constraintdef(k.oid))
         from pg_constraint k join pg_type t on t.oid = k.contypid join pg_namespace n on n.oid = t.typnamespace
        where n.nspname = any($1) and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}
     ) x order by oid, ord, ddl`,
  );

/** Free-standing and serial sequences (identity sequences come with their column). */
export const sequenceDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE SEQUENCE %s AS %s %s', c.oid::regclass, format_type(s.seqtypid, null), ${SEQUENCE_OPTIONS}) as ddl
       from pg_sequence s join pg_class c on c.oid = s.seqrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1)
        and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('i', 'e'))
      order by c.oid`,
  );

/**
 * CREATE TABLE with columns, types, collations, identity (with its sequence's name and options),
 * generated columns and NOT NULL; UNLOGGED, storage options and the partition key. Defaults come
 * after the data (they may call functions created later; COPY does not use them).
 */
export const tableDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select format('CREATE %sTABLE %s (%s)%s%s', case when c.relpersistence = 'u' then 'UNLOGGED ' else '' end, c.oid::regclass,
              coalesce(string_agg(format('%I %s%s%s%s%s', a.attname, format_type(a.atttypid, a.atttypmod), ${COLLATE},
                case when a.attidentity <> '' then format(' GENERATED %s AS IDENTITY (SEQUENCE NAME %s %s)',
                       case a.attidentity when 'a' then 'ALWAYS' else 'BY DEFAULT' end, s.seqrelid::regclass, ${SEQUENCE_OPTIONS})
                     else '' end,
                case when a.attgenerated = 's' then ' GENERATED ALWAYS AS (' || pg_get_expr(ad.adbin, ad.adrelid) || ') STORED' else '' end,
                case when a.attnotnull then ' NOT NULL' else '' end), ', ' order by a.attnum), ''),
              case when c.relkind = 'p' then ' PARTITION BY ' || pg_get_partkeydef(c.oid) else '' end,
              case when c.reloptions is not null then ' WITH (' || array_to_string(c.reloptions, ', ') || ')' else '' end) as ddl
       from pg_class c
       left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       left join pg_type at on at.oid = a.atttypid
       left join pg_attrdef ad on ad.adrelid = c.oid and ad.adnum = a.attnum
       left join pg_depend sd on a.attidentity <> '' and sd.refobjid = c.oid and sd.refobjsubid = a.attnum
             and sd.classid = 'pg_class'::regclass and sd.refclassid = 'pg_class'::regclass and sd.deptype = 'i'
       left join pg_sequence s on s.seqrelid = sd.objid
      where c.oid in (${USER_TABLES})
      group by c.oid order by c.oid`,
  );

/** Partitions attached to their parents, and tables to the tables they inherit from. */
export const inheritanceDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select case when c.relispartition
              then format('ALTER TABLE %s ATTACH PARTITION %s %s', i.inhparent::regclass, c.oid::regclass, pg_get_expr(c.relpartbound, c.oid))
              else format('ALTER TABLE %s INHERIT %s', c.oid::regclass, i.inhparent::regclass) end as ddl
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.oid in (${USER_TABLES}) order by i.inhparent, c.oid, i.inhseqno`,
  );

/**
 * Whether a routine must wait for the tables (or views): its body is parsed at creation (a
 * SQL-standard body), or its signature names a relation's row type or a range type of the user
 * schemas. The others are created before the tables, which may call them in generated columns.
 */
const LATE_ROUTINE = `(p.prosqlbody is not null
  or p.oid in (select d.objid from pg_depend d join pg_type t on t.oid = d.refobjid
                 left join pg_type e on e.oid = t.typelem and t.typcategory = 'A'
                 join pg_namespace tn on tn.oid = coalesce(e.typnamespace, t.typnamespace)
                 left join pg_class r on r.oid = coalesce(e.typrelid, t.typrelid)
                where d.classid = 'pg_proc'::regclass and d.refclassid = 'pg_type'::regclass and tn.nspname = any($1)
                  and (coalesce(e.typtype, t.typtype) in ('r', 'm') or r.relkind <> 'c')))`;

const USER_ROUTINES = `select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = any($1) and p.prokind in ('f', 'p') and ${OWN_OBJECT('pg_proc', 'p.oid')}`;

const USER_AGGREGATES = `select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = any($1) and p.prokind = 'a' and ${OWN_OBJECT('pg_proc', 'p.oid')}`;

/** CREATE AGGREGATE for the plain aggregate `p` (pg_proc) with its pg_aggregate row `a`. */
const AGGREGATE_DDL = `format('CREATE AGGREGATE %s(%s) (SFUNC = %s, STYPE = %s%s)', p.oid::regproc,
  pg_get_function_identity_arguments(p.oid), a.aggtransfn::regproc, format_type(a.aggtranstype, null), concat(
    case when a.aggtransspace <> 0 then ', SSPACE = ' || a.aggtransspace end,
    case when a.aggfinalfn <> 0 then ', FINALFUNC = ' || a.aggfinalfn::regproc::text end,
    case when a.aggfinalextra then ', FINALFUNC_EXTRA' end,
    case a.aggfinalmodify when 's' then ', FINALFUNC_MODIFY = SHAREABLE' when 'w' then ', FINALFUNC_MODIFY = READ_WRITE' end,
    case when a.aggcombinefn <> 0 then ', COMBINEFUNC = ' || a.aggcombinefn::regproc::text end,
    case when a.aggserialfn <> 0 then ', SERIALFUNC = ' || a.aggserialfn::regproc::text end,
    case when a.aggdeserialfn <> 0 then ', DESERIALFUNC = ' || a.aggdeserialfn::regproc::text end,
    case when a.agginitval is not null then ', INITCOND = ' || quote_literal(a.agginitval) end,
    case when a.aggmtransfn <> 0 then format(', MSFUNC = %s, MINVFUNC = %s, MSTYPE = %s', a.aggmtransfn::regproc,
      a.aggminvtransfn::regproc, format_type(a.aggmtranstype, null)) end,
    case when a.aggmtransspace <> 0 then ', MSSPACE = ' || a.aggmtransspace end,
    case when a.aggmfinalfn <> 0 then ', MFINALFUNC = ' || a.aggmfinalfn::regproc::text end,
    case when a.aggmfinalextra then ', MFINALFUNC_EXTRA' end,
    case when a.aggminitval is not null then ', MINITCOND = ' || quote_literal(a.aggminitval) end,
    case when a.aggsortop <> 0 then ', SORTOP = ' || a.aggsortop::regoperator::text end,
    case p.proparallel when 's' then ', PARALLEL = SAFE' when 'r' then ', PARALLEL = RESTRICTED' end))`;

/** The routines that can be created before the tables. */
export const earlyRoutineDdl = (db: Queryable, schemas: string[]) =>
  ddlOf(
    db,
    schemas,
    `select pg_get_functiondef(p.oid) as ddl from pg_proc p
      where p.oid in (${USER_ROUTINES}) and not ${LATE_ROUTINE} order by p.oid`,
  );

/**
 * Views, materialized views (empty), the routines that wait for the tables and the (plain)
 * aggregates, each after what it reads or names (relations, row types, routines), as pg_depend
 * records it.
 */
export async function viewAndLateRoutineDdl(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db.unsafe<{ name: string; ddl: string; references: string[] }[]>(
    `select name, ddl, "references" from (
       select c.oid, 'r' || c.oid as name,
              format('CREATE %sVIEW %s%s AS %s%s',
                case when c.relkind = 'm' then 'MATERIALIZED ' else '' end, c.oid::regclass,
                case when c.reloptions is not null then ' WITH (' || array_to_string(c.reloptions, ', ') || ')' else '' end,
                rtrim(pg_get_viewdef(c.oid), ';'),
                case when c.relkind = 'm' then ' WITH NO DATA' else '' end) as ddl,
              array(select ${DEPENDENCY_NAME} from pg_rewrite w
                      join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = w.oid
                     where w.ev_class = c.oid and d.refobjid <> c.oid) as references
         from pg_class c where c.oid in (${USER_RELATIONS(`'v', 'm'`)})
       union all
       select p.oid, 'p' || p.oid, case when p.prokind = 'a' then ${AGGREGATE_DDL} else pg_get_functiondef(p.oid) end,
              array(select ${DEPENDENCY_NAME} from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid)
         from pg_proc p left join pg_aggregate a on a.aggfnoid = p.oid
        where (p.oid in (${USER_ROUTINES}) and ${LATE_ROUTINE})
           or (p.oid in (${USER_AGGREGATES}) and a.aggkind = 'n')
     ) x order by oid`,
    [schemas],
  );
  return parentsFirst(rows).map((r) => r.ddl);
}

/** The pg_depend row `d`'s referenced object as viewAndLateRoutineDdl names it: a relation (or its row type) or a routine. */
const DEPENDENCY_NAME = `case d.refclassid
  when 'pg_class'::regclass then 'r' || d.refobjid
  when 'pg_proc'::regclass then 'p' || d.refobjid
  when 'pg_type'::regclass then (select 'r' || coalesce(nullif(e.typrelid, 0), t.typrelid) from pg_type t
                                   left join pg_type e on e.oid = t.typelem and t.typcategory = 'A' where t.oid = d.refobjid)
  end`;

/** The relations the view `c` reads. */
export const VIEW_REFERENCES = `array(select distinct d.refobjid::regclass::text from pg_rewrite w
  join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = w.oid and d.refclassid = 'pg_class'::regclass
  where w.ev_class = c.oid and d.refobjid <> c.oid)`;
