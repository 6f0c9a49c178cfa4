// The table or view a records request names, in one of the exposed schemas (else 406 PGRST106),
// found in the schema cache (else 404 PGRST205) after one refresh for a table just created.
import { recordsError } from '../records-errors.js';
import { qualified, type SchemaCache, type Table } from '../schema-cache.js';

/** An exposed schema, or PostgREST's 406 naming them. */
export function checkSchema(schema: string, schemas: string[]): void {
  if (schemas.includes(schema)) return;
  throw recordsError('NOT_ACCEPTABLE', 'PGRST106', `The schema must be one of the following: ${schemas.join(', ')}`);
}

export async function resolveTable(
  cache: SchemaCache,
  schemas: string[],
  schema: string,
  name: string,
): Promise<Table> {
  checkSchema(schema, schemas);
  let table = cache.current().tables.get(qualified(schema, name));
  // A table created a moment ago may not have reached this server's cache yet. Look again even
  // when this refresh found nothing new: a reload (NOTIFY) may have landed while it asked.
  if (!table) {
    await cache.refreshIfChanged();
    table = cache.current().tables.get(qualified(schema, name));
  }
  if (!table) {
    throw recordsError('NOT_FOUND', 'PGRST205', `Could not find the table '${schema}.${name}' in the schema cache`, {
      hint: 'Check the table name, or create it with a migration.',
    });
  }
  return table;
}
