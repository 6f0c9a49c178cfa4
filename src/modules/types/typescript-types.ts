// Renders the `Database` type in the shape @supabase/postgrest-js and supabase-js consume (the
// same layout `supabase gen types typescript` prints): per exposed schema, Tables and Views with
// Row/Insert/Update and Relationships, Functions with Args/Returns, Enums and CompositeTypes.
// Pure: everything it prints comes from the catalog facts it is given.
import type { SchemaCache } from '../records/index.js';
import type { CompositeType, DomainType, EnumType, ViewWrites, WriteRule } from './types.repo.js';

type Snapshot = ReturnType<SchemaCache['current']>;
type Table = Snapshot['tables'] extends Map<string, infer T> ? T : never;
type Routine = Snapshot['routines'] extends Map<string, (infer R)[]> ? R : never;

export interface CatalogFacts {
  snapshot: Snapshot;
  enums: EnumType[];
  domains: DomainType[];
  composites: CompositeType[];
  unwritable: WriteRule[];
  viewWrites: ViewWrites[];
}

const NUMBER = ['smallint', 'integer', 'bigint', 'real', 'double precision', 'numeric', 'oid', 'money'];
const BOOLEAN = ['boolean'];
const JSON_TYPES = ['json', 'jsonb'];
const STRING = [
  'text',
  'character varying',
  'character',
  '"char"',
  'name',
  'citext',
  'uuid',
  'bytea',
  'date',
  'interval',
  'time without time zone',
  'time with time zone',
  'timestamp without time zone',
  'timestamp with time zone',
  'inet',
  'cidr',
  'macaddr',
  'macaddr8',
  'tsvector',
  'tsquery',
  'xml',
  'bit',
  'bit varying',
  'vector',
];

const EMPTY = '{\n  [_ in never]: never\n}';

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));
const indent = (text: string, by = 2) => text.replaceAll('\n', `\n${' '.repeat(by)}`);
const block = (entries: string[]) => (entries.length === 0 ? EMPTY : `{\n  ${indent(entries.join('\n'))}\n}`);
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `schema.name` as format_type prints it (quoted where needed) → its parts, unquoted. */
function splitQualified(text: string): { schema?: string; name: string } {
  const part = '("(?:[^"]|"")+"|[^."]+)';
  const unquote = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s);
  const m = new RegExp(`^${part}\\.${part}$`).exec(text);
  return m ? { schema: unquote(m[1]!), name: unquote(m[2]!) } : { name: unquote(text) };
}

function typeMapper(facts: CatalogFacts) {
  const ref = (schema: string, section: string, name: string) =>
    `Database[${JSON.stringify(schema)}][${JSON.stringify(section)}][${JSON.stringify(name)}]`;
  const userType = (schema: string, name: string): string | undefined => {
    const domain = facts.domains.find((d) => d.schema === schema && d.name === name);
    if (domain) return tsType(domain.base);
    if (facts.enums.some((e) => e.schema === schema && e.name === name)) return ref(schema, 'Enums', name);
    if (facts.composites.some((c) => c.schema === schema && c.name === name))
      return ref(schema, 'CompositeTypes', name);
    const table = facts.snapshot.tables.get(`${schema}.${name}`);
    if (table) return `${ref(schema, table.kind === 'view' ? 'Views' : 'Tables', name)}["Row"]`;
    return undefined;
  };
  function tsType(pgType: string): string {
    if (pgType.endsWith('[]')) return `${tsType(pgType.slice(0, -2))}[]`;
    const bare = pgType.replace(/\(\d+(,\d+)?\)/g, '');
    if (NUMBER.includes(bare)) return 'number';
    if (BOOLEAN.includes(bare)) return 'boolean';
    if (JSON_TYPES.includes(bare)) return 'Json';
    if (STRING.includes(bare)) return 'string';
    if (bare === 'void') return 'undefined';
    if (bare === 'record') return 'Record<string, unknown>';
    const { schema, name } = splitQualified(bare);
    if (schema) return userType(schema, name) ?? 'unknown';
    for (const s of ['public', ...facts.snapshot.schemas]) {
      const found = userType(s, name);
      if (found) return found;
    }
    return 'unknown';
  }
  return tsType;
}

function relationships(facts: CatalogFacts, table: Table): string {
  const fks = facts.snapshot.foreignKeys
    .filter((fk) => fk.schema === table.schema && fk.table === table.name)
    .sort(byName);
  if (fks.length === 0) return 'Relationships: []';
  const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((c) => b.includes(c));
  const entries = fks.map((fk) =>
    [
      '{',
      `  foreignKeyName: ${JSON.stringify(fk.name)}`,
      `  columns: ${JSON.stringify(fk.columns)}`,
      `  isOneToOne: ${table.uniqueKeys.some((u) => sameSet(u, fk.columns))}`,
      `  referencedRelation: ${JSON.stringify(fk.refTable)}`,
      `  referencedColumns: ${JSON.stringify(fk.refColumns)}`,
      '},',
    ].join('\n'),
  );
  return `Relationships: [\n  ${indent(entries.join('\n'))}\n]`;
}

function relation(facts: CatalogFacts, table: Table, tsType: (t: string) => string): string {
  const columns = [...table.columns.values()].sort(byName);
  const rule = (column: string) =>
    facts.unwritable.find((u) => u.schema === table.schema && u.table === table.name && u.column === column);
  const value = (c: (typeof columns)[number]) => `${tsType(c.type)}${c.nullable ? ' | null' : ''}`;
  const row = columns.map((c) => `${key(c.name)}: ${value(c)}`);
  // Identity ALWAYS and generated columns are never written.
  const write = (optional: (c: (typeof columns)[number]) => boolean) =>
    columns.map((c) =>
      rule(c.name) ? `${key(c.name)}?: never` : `${key(c.name)}${optional(c) ? '?' : ''}: ${value(c)}`,
    );
  const parts = [`Row: ${block(row)}`];
  const writes =
    table.kind === 'view'
      ? facts.viewWrites.find((v) => v.schema === table.schema && v.name === table.name)
      : { insertable: true, updatable: true };
  if (writes?.insertable) {
    const insertOptional = (c: (typeof columns)[number]) => table.kind === 'view' || c.nullable || c.hasDefault;
    parts.push(`Insert: ${block(write(insertOptional))}`);
  }
  if (writes?.updatable) parts.push(`Update: ${block(write(() => true))}`);
  parts.push(relationships(facts, table));
  return `${key(table.name)}: {\n  ${indent(parts.join('\n'))}\n}`;
}

function routineType(facts: CatalogFacts, r: Routine, tsType: (t: string) => string): string {
  const named = r.args.filter((a) => a.name !== '' || r.args.length === 1);
  const args =
    named.length === 0
      ? 'never'
      : block(named.map((a) => `${key(a.name)}${a.hasDefault ? '?' : ''}: ${tsType(a.type)}`));
  let returns: string;
  if (r.returnsVoid) returns = 'undefined';
  else if (r.returnTable) {
    const t = facts.snapshot.tables.get(`${r.returnTable.schema}.${r.returnTable.name}`);
    const section = t?.kind === 'view' ? 'Views' : 'Tables';
    returns = `Database[${JSON.stringify(r.returnTable.schema)}][${JSON.stringify(section)}][${JSON.stringify(r.returnTable.name)}]["Row"]`;
  } else if (r.returnsRows && r.columns.length > 0) {
    returns = block(r.columns.map((c) => `${key(c.name)}: ${tsType(c.type)}`));
  } else returns = tsType(r.returnType);
  if (r.returnsSet) returns = returns.includes('\n') ? `(${returns})[]` : `${returns}[]`;
  return `{\n  Args: ${indent(args)}\n  Returns: ${indent(returns)}\n}`;
}

function schemaType(facts: CatalogFacts, schema: string, tsType: (t: string) => string): string {
  const relations = [...facts.snapshot.tables.values()].filter((t) => t.schema === schema).sort(byName);
  const tables = relations.filter((t) => t.kind === 'table').map((t) => relation(facts, t, tsType));
  const views = relations.filter((t) => t.kind === 'view').map((t) => relation(facts, t, tsType));
  const functions = [...facts.snapshot.routines.values()]
    .filter((overloads) => overloads[0]?.schema === schema)
    .sort((a, b) => byName(a[0]!, b[0]!))
    .map(
      (overloads) => `${key(overloads[0]!.name)}: ${overloads.map((r) => routineType(facts, r, tsType)).join(' | ')}`,
    );
  const enums = facts.enums
    .filter((e) => e.schema === schema)
    .map((e) => `${key(e.name)}: ${e.labels.map((l) => JSON.stringify(l)).join(' | ') || 'never'}`);
  const composites = facts.composites
    .filter((c) => c.schema === schema)
    .map((c) => `${key(c.name)}: ${block(c.attributes.map((a) => `${key(a.name)}: ${tsType(a.type)} | null`))}`);
  return block([
    `Tables: ${block(tables)}`,
    `Views: ${block(views)}`,
    `Functions: ${block(functions)}`,
    `Enums: ${block(enums)}`,
    `CompositeTypes: ${block(composites)}`,
  ]);
}

const HELPERS = `
type DefaultSchema = Database["public"]

export type Tables<T extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])> =
  (DefaultSchema["Tables"] & DefaultSchema["Views"])[T] extends { Row: infer R } ? R : never

export type TablesInsert<T extends keyof DefaultSchema["Tables"]> = DefaultSchema["Tables"][T]["Insert"]

export type TablesUpdate<T extends keyof DefaultSchema["Tables"]> = DefaultSchema["Tables"][T]["Update"]

export type Enums<T extends keyof DefaultSchema["Enums"]> = DefaultSchema["Enums"][T]

export type CompositeTypes<T extends keyof DefaultSchema["CompositeTypes"]> = DefaultSchema["CompositeTypes"][T]
`;

/** The whole `database.types.ts` file. */
export function renderTypescript(facts: CatalogFacts): string {
  const tsType = typeMapper(facts);
  const schemas = [...facts.snapshot.schemas].sort();
  const database = block(schemas.map((s) => `${key(s)}: ${schemaType(facts, s, tsType)}`));
  const objectLiteral = (entries: string[]) => (entries.length === 0 ? '{}' : `{\n  ${indent(entries.join('\n'))}\n}`);
  const constants = objectLiteral(
    schemas.map((s) => {
      const enums = facts.enums
        .filter((e) => e.schema === s)
        .map((e) => `${key(e.name)}: ${JSON.stringify(e.labels)},`);
      return `${key(s)}: ${objectLiteral([`Enums: ${objectLiteral(enums)},`])},`;
    }),
  );
  return [
    '// Generated by Plinth (GET /api/database/types?lang=typescript). Do not edit by hand.',
    '',
    'export type Json =\n  | string\n  | number\n  | boolean\n  | null\n  | { [key: string]: Json | undefined }\n  | Json[]',
    '',
    `export type Database = ${database}`,
    schemas.includes('public') ? HELPERS : '',
    `export const Constants = ${constants} as const`,
    '',
  ].join('\n');
}
