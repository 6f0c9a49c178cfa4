// SQL of the schema version every server's records schema cache follows (system.bump_schema_version).
import type { Queryable } from '../../core/db.js';

/** Tells every server's schema cache that the catalog changed (also without event triggers). */
export async function announceSchemaChange(db: Queryable): Promise<void> {
  await db`select system.bump_schema_version()`;
}
