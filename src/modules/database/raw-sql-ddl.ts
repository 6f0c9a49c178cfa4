// Which statements of admin SQL (run as project_admin) change the schema, and may therefore run
// as the database owner, as migrations do: DDL on the project's own objects in `public` only.
// Reads, writes, DO blocks and CALLs stay project_admin's (row-level security applies); DDL that
// names another schema (system, auth, storage…) or manages schemas, owners or event triggers is
// refused, so the platform's schemas stay out of reach.
import { AppError } from '../../core/errors.js';
import type { ParsedStatement } from './sql-statement.js';

/** Statement kinds that keep running as project_admin. */
const AS_PROJECT_ADMIN = new Set([
  'SelectStmt',
  'InsertStmt',
  'UpdateStmt',
  'DeleteStmt',
  'MergeStmt',
  'ExplainStmt',
  'VariableSetStmt',
  'VariableShowStmt',
  'CallStmt',
  'DoStmt',
  'LockStmt',
  'NotifyStmt',
  'ListenStmt',
  'UnlistenStmt',
  'CheckPointStmt',
  'DeclareCursorStmt',
  'FetchStmt',
  'ClosePortalStmt',
]);

/** DDL kinds admin SQL never runs as the owner (a migration or the unrestricted variant can). */
const OWNER_ONLY_KINDS: Record<string, string> = {
  CreateSchemaStmt: 'Creating schemas',
  AlterOwnerStmt: 'Changing owners',
  AlterDefaultPrivilegesStmt: 'Changing default privileges',
  CreateEventTrigStmt: 'Event triggers',
  AlterEventTrigStmt: 'Event triggers',
  AlterObjectSchemaStmt: 'Moving objects between schemas',
  SecLabelStmt: 'Security labels',
};

/** Subtrees that use (not define) names: types, function calls, columns, operators, collations. */
const NAME_USES = new Set(['TypeName', 'FuncCall', 'ColumnRef', 'A_Expr', 'CollateClause', 'TypeCast']);

export function isSchemaChange(statement: ParsedStatement): boolean {
  return !AS_PROJECT_ADMIN.has(statement.kind);
}

function qualifiedName(list: unknown): string[] | undefined {
  if (!Array.isArray(list) || list.length < 2) return undefined;
  const parts = list.map((item) => (item as { String?: { sval?: string } })?.String?.sval);
  return parts.every((p) => typeof p === 'string') ? (parts as string[]) : undefined;
}

/**
 * Keys whose lists are qualified object names ([schema, name]); other lists of plain names (enum
 * labels, key columns, view column aliases) say nothing about schemas.
 */
const NAME_LISTS = new Set([
  'typeName',
  'funcname',
  'defnames',
  'domainname',
  'objname',
  'objects',
  'object',
  'collname',
  'conversion_name',
  'opclassname',
  'opfamilyname',
  'names',
]);

/** The first schema other than public the statement's tree names as a target, if any. */
function foreignSchema(node: unknown, key?: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    const name = key && NAME_LISTS.has(key) ? qualifiedName(node) : undefined;
    if (name && name[0]!.toLowerCase() !== 'public') return name[0];
    for (const item of node) {
      const found = foreignSchema(item, key);
      if (found) return found;
    }
    return undefined;
  }
  const record = node as Record<string, unknown>;
  if (
    record.objtype === 'OBJECT_SCHEMA' ||
    record.removeType === 'OBJECT_SCHEMA' ||
    record.renameType === 'OBJECT_SCHEMA'
  )
    return 'a schema';
  if (record.subtype === 'AT_ChangeOwner') return 'an owner change';
  // A relation (RangeVar): the parser keeps its schema apart from its name.
  const schema = typeof record.relname === 'string' ? (record.schemaname as string | undefined) : undefined;
  if (schema && schema.toLowerCase() !== 'public') return schema;
  for (const [k, value] of Object.entries(record)) {
    if (NAME_USES.has(k)) continue;
    // A column's or a cast's type (pg_catalog.int4…) is used, not defined; CREATE TYPE's is a list.
    if (k === 'typeName' && !Array.isArray(value)) continue;
    // A foreign key may reference another schema's table (auth.users); it changes only this one.
    if (k === 'pktable' && key === 'Constraint') continue;
    // A nested list ({List: {items}}) belongs to the key that holds it (DROP's objects, COMMENT's object).
    const found = foreignSchema(value, k === 'List' || k === 'items' ? key : k);
    if (found) return found;
  }
  return undefined;
}

/** Throws 403 when a schema change of admin SQL reaches beyond the project's own objects in public. */
export function assertProjectDdl(statement: ParsedStatement, index: number): void {
  const refused = OWNER_ONLY_KINDS[statement.kind];
  const schema = refused ? undefined : foreignSchema(statement.node);
  if (!refused && !schema) return;
  const what = refused ?? `Changing objects outside the public schema (${schema})`;
  throw new AppError(
    'FORBIDDEN',
    `${what} is not allowed in admin SQL (statement ${index}: ${statement.text.slice(0, 80)})`,
    {
      nextActions:
        'Admin SQL changes the project’s own tables, views, types and functions in public; write a migration (plinth db migrations new) for anything else.',
    },
  );
}
