// SQL of the generated types: the catalog facts the records schema cache does not keep — enum
// labels, domains' base types, standalone composite types, identity and generated columns, and which views accept
// writes — for the exposed schemas.
import type { Queryable } from '../../core/db.js';

export interface EnumType {
  schema: string;
  name: string;
  labels: string[];
}

export interface DomainType {
  schema: string;
  name: string;
  /** format_type() of the type underneath. */
  base: string;
}

export interface CompositeType {
  schema: string;
  name: string;
  attributes: { name: string; type: string }[];
}

export interface WriteRule {
  schema: string;
  table: string;
  column: string;
  /** 'a': GENERATED ALWAYS AS IDENTITY, 's': a stored generated column. */
  kind: 'a' | 's';
}

export interface ViewWrites {
  schema: string;
  name: string;
  insertable: boolean;
  updatable: boolean;
}

export async function enumTypes(db: Queryable, schemas: string[]): Promise<EnumType[]> {
  return db<EnumType[]>`
    select n.nspname as schema, t.typname as name,
           array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as labels
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype = 'e' and n.nspname = any(${schemas})
    order by n.nspname, t.typname`;
}

export async function domainTypes(db: Queryable, schemas: string[]): Promise<DomainType[]> {
  return db<DomainType[]>`
    select n.nspname as schema, t.typname as name, format_type(t.typbasetype, t.typtypmod) as base
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype = 'd' and n.nspname = any(${schemas})`;
}

export async function compositeTypes(db: Queryable, schemas: string[]): Promise<CompositeType[]> {
  return db<CompositeType[]>`
    select n.nspname as schema, t.typname as name,
           coalesce((select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) order by a.attnum)
                     from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped), '[]') as attributes
    from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_class c on c.oid = t.typrelid
    where t.typtype = 'c' and c.relkind = 'c' and n.nspname = any(${schemas})
    order by n.nspname, t.typname`;
}

/** Columns a client never writes: identity ALWAYS and generated columns. */
export async function unwritableColumns(db: Queryable, schemas: string[]): Promise<WriteRule[]> {
  return db<WriteRule[]>`
    select n.nspname as schema, c.relname as table, a.attname as column,
           case when a.attgenerated = 's' then 's' else 'a' end as kind
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any(${schemas}) and a.attnum > 0 and not a.attisdropped
      and (a.attidentity = 'a' or a.attgenerated = 's')`;
}

/** pg_relation_is_updatable's bits: 8 INSERT, 4 UPDATE. */
export async function viewWrites(db: Queryable, schemas: string[]): Promise<ViewWrites[]> {
  return db<ViewWrites[]>`
    select n.nspname as schema, c.relname as name,
           (pg_relation_is_updatable(c.oid, false) & 8) = 8 as insertable,
           (pg_relation_is_updatable(c.oid, false) & 4) = 4 as updatable
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('v', 'm') and n.nspname = any(${schemas})`;
}
