// Catalog reads for the admin: schemas, functions, indexes, row-level security policies and
// triggers of one schema, optionally of one table.
import type { Queryable } from '../../core/db.js';

/** Schemas Plinth itself owns: listed, but marked protected (change them only through the API). */
export const PLATFORM_SCHEMAS = ['auth', 'email', 'functions', 'payments', 'storage', 'system'];

export async function listSchemas(db: Queryable): Promise<{ name: string; isProtected: boolean }[]> {
  const rows = await db<{ name: string }[]>`
    select nspname as name from pg_namespace
    where nspname not like 'pg\\_%' and nspname <> 'information_schema'
    order by nspname`;
  return rows.map((r) => ({ name: r.name, isProtected: PLATFORM_SCHEMAS.includes(r.name) }));
}

export interface FunctionInfo {
  name: string;
  arguments: string;
  returnType: string;
  language: string;
  kind: string;
  definition: string;
}

export async function listFunctions(db: Queryable, schema: string): Promise<FunctionInfo[]> {
  return db<FunctionInfo[]>`
    select p.proname as name, pg_get_function_arguments(p.oid) as arguments,
           pg_get_function_result(p.oid) as "returnType", l.lanname as language,
           case p.prokind when 'f' then 'function' when 'p' then 'procedure' when 'a' then 'aggregate' else 'window' end as kind,
           case when p.prokind in ('f', 'p') then pg_get_functiondef(p.oid) else '' end as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
    where n.nspname = ${schema}
      and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
    order by p.proname, pg_get_function_arguments(p.oid)`;
}

export interface IndexInfo {
  tableName: string;
  indexName: string;
  indexDef: string;
  isUnique: boolean;
  isPrimary: boolean;
}

export async function listIndexes(db: Queryable, schema: string, table?: string): Promise<IndexInfo[]> {
  return db<IndexInfo[]>`
    select t.relname as "tableName", i.relname as "indexName", pg_get_indexdef(x.indexrelid) as "indexDef",
           x.indisunique as "isUnique", x.indisprimary as "isPrimary"
    from pg_index x
    join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = ${schema} and (${table ?? null}::text is null or t.relname = ${table ?? null})
    order by t.relname, i.relname`;
}

export interface PolicyInfo {
  tableName: string;
  policyName: string;
  command: string;
  permissive: string;
  roles: string[];
  using: string | null;
  withCheck: string | null;
}

export async function listPolicies(db: Queryable, schema: string, table?: string): Promise<PolicyInfo[]> {
  return db<PolicyInfo[]>`
    select tablename::text as "tableName", policyname::text as "policyName", cmd as command, permissive,
           roles::text[] as roles, qual as using, with_check as "withCheck"
    from pg_policies
    where schemaname = ${schema} and (${table ?? null}::text is null or tablename = ${table ?? null})
    order by tablename, policyname`;
}

export interface TriggerInfo {
  tableName: string;
  triggerName: string;
  functionName: string;
  enabled: boolean;
  definition: string;
}

export async function listTriggers(db: Queryable, schema: string, table?: string): Promise<TriggerInfo[]> {
  return db<TriggerInfo[]>`
    select c.relname as "tableName", tg.tgname as "triggerName", fn.nspname || '.' || p.proname as "functionName",
           tg.tgenabled <> 'D' as enabled, pg_get_triggerdef(tg.oid) as definition
    from pg_trigger tg
    join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace
    join pg_proc p on p.oid = tg.tgfoid join pg_namespace fn on fn.oid = p.pronamespace
    where not tg.tgisinternal and n.nspname = ${schema} and (${table ?? null}::text is null or c.relname = ${table ?? null})
    order by c.relname, tg.tgname`;
}
