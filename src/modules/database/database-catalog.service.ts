// What the catalog holds, read for the admin and the metadata overview: the public tables with
// exact record counts and the database size, one table's full description, and a schema's
// functions, indexes, policies and triggers.
import type { Queryable } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { databaseSize, publicTables, tableCounts } from './database-metadata.repo.js';
import { listFunctions, listIndexes, listPolicies, listSchemas, listTriggers } from './database-objects.repo.js';
import { tableNotFound } from './table-admin.service.js';
import { readTableSchema } from './table-schema.repo.js';

/** The public tables with their exact record counts, their totals and the database's size. */
export async function databaseSummary(db: Queryable) {
  const [tables, size] = await Promise.all([tableCounts(db), databaseSize(db)]);
  return {
    tables,
    totalTables: tables.length,
    totalRecords: tables.reduce((sum, t) => sum + t.recordCount, 0),
    databaseSize: size,
  };
}

/** One public table: columns, indexes, foreign keys, RLS, policies and triggers; 404 if missing. */
export async function describeTable(db: Queryable, name: string) {
  const schema = await readTableSchema(db, name);
  if (!schema) throw tableNotFound(name);
  const [indexes, policies, triggers] = await Promise.all([
    listIndexes(db, 'public', name),
    listPolicies(db, 'public', name),
    listTriggers(db, 'public', name),
  ]);
  const foreignKeys = schema.columns.flatMap((c) =>
    c.foreignKey ? [{ columnName: c.columnName, ...c.foreignKey }] : [],
  );
  return { ...schema, indexes, foreignKeys, policies, triggers };
}

const objectLists = { functions: listFunctions, indexes: listIndexes, policies: listPolicies, triggers: listTriggers };
export type CatalogObjectKind = keyof typeof objectLists;

export function createDatabaseCatalogService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    async summary() {
      return { ...(await databaseSummary(deps.sql)), lastUpdated: deps.clock.now().toISOString() };
    },
    publicTables: () => publicTables(deps.sql),
    schemas: () => listSchemas(deps.sql),
    objects: (kind: CatalogObjectKind, schema: string) => objectLists[kind](deps.sql, schema),
  };
}

export type DatabaseCatalogService = ReturnType<typeof createDatabaseCatalogService>;
