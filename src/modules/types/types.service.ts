// Generated types for the project's database: the records API's schema cache (brought up to
// date first) plus the catalog facts it does not keep, rendered as TypeScript.
import type { Deps } from '../../deps.js';
import type { SchemaCache } from '../records/index.js';
import * as repo from './types.repo.js';
import { renderTypescript } from './typescript-types.js';

export function createTypesService(deps: Pick<Deps, 'replicas'>, schemaCache: SchemaCache) {
  return {
    async typescript(): Promise<string> {
      await schemaCache.refreshIfChanged();
      const snapshot = schemaCache.current();
      // Catalog reads: on a read replica that has replayed this server's writes (migrations included).
      const [enums, domains, composites, unwritable, viewWrites] = await deps.replicas.read('server', (sql) =>
        Promise.all([
          repo.enumTypes(sql, snapshot.schemas),
          repo.domainTypes(sql, snapshot.schemas),
          repo.compositeTypes(sql, snapshot.schemas),
          repo.unwritableColumns(sql, snapshot.schemas),
          repo.viewWrites(sql, snapshot.schemas),
        ]),
      );
      return renderTypescript({ snapshot, enums, domains, composites, unwritable, viewWrites });
    },
  };
}

export type TypesService = ReturnType<typeof createTypesService>;
