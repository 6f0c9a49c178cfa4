// Generated types for the project's database: the records API's schema cache (brought up to
// date first) plus the catalog facts it does not keep, rendered as TypeScript.
import type { Deps } from '../../deps.js';
import type { SchemaCache } from '../records/index.js';
import * as repo from './types.repo.js';
import { renderTypescript } from './typescript-types.js';

export function createTypesService(deps: Pick<Deps, 'sql'>, schemaCache: SchemaCache) {
  return {
    async typescript(): Promise<string> {
      await schemaCache.refreshIfChanged();
      const snapshot = schemaCache.current();
      const [enums, domains, composites, unwritable, viewWrites] = await Promise.all([
        repo.enumTypes(deps.sql, snapshot.schemas),
        repo.domainTypes(deps.sql, snapshot.schemas),
        repo.compositeTypes(deps.sql, snapshot.schemas),
        repo.unwritableColumns(deps.sql, snapshot.schemas),
        repo.viewWrites(deps.sql, snapshot.schemas),
      ]);
      return renderTypescript({ snapshot, enums, domains, composites, unwritable, viewWrites });
    },
  };
}

export type TypesService = ReturnType<typeof createTypesService>;
