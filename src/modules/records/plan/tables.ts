// The table or view a records request names, in one of the exposed schemas (else 406 PGRST106),
// found in the schema cache (else 404 PGRST205) after one refresh for a table just created.
import type { PgrstHeaders } from '../pgrst-request.js';
import { recordsError } from '../records-errors.js';
import { qualified, type SchemaCache, type Table } from '../schema-cache.js';

/**
 * The exposed schema a request names: `?schema=`, else Accept-Profile (reads) or Content-Profile
 * (writes), else the first exposed schema; one not exposed is PostgREST's 406 naming them.
 */
export function schemaOf(
  req: { query: [string, string][]; headers: PgrstHeaders },
  reading: boolean,
  schemas: string[],
): string {
  const schema =
    req.query.find(([key]) => key === 'schema')?.[1] ??
    (reading ? req.headers.acceptProfile : req.headers.contentProfile) ??
    schemas[0]!;
  if (schemas.includes(schema)) return schema;
  throw recordsError('NOT_ACCEPTABLE', 'PGRST106', `The schema must be one of the following: ${schemas.join(', ')}`);
}

/** `schema.name` (the schema already checked by schemaOf), after one refresh if it is not there. */
export async function resolveTable(cache: SchemaCache, schema: string, name: string): Promise<Table> {
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
