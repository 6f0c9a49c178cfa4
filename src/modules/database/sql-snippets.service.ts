// Saved SQL snippets: list, save, rename or rewrite, delete; names are unique across the project.
import { AppError } from '../../core/errors.js';
import { withPgOverrides } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './sql-snippets.repo.js';
import type { Snippet } from './sql-snippets.schemas.js';

const notFound = () =>
  new AppError('DATABASE_NOT_FOUND', 'Snippet not found.', {
    nextActions: 'List the saved snippets with GET /api/database/snippets and use one of their ids.',
  });

/** The unique name taken by another snippet is a 409 saying so (see core/pg-errors.ts). */
const uniqueName = <T>(name: string | undefined, write: () => Promise<T>): Promise<T> =>
  withPgOverrides(
    {
      '23505': () =>
        new AppError('DATABASE_DUPLICATE', `A snippet named "${name}" already exists.`, {
          details: { name },
          nextActions: 'Choose another name, or change the existing snippet with PATCH /api/database/snippets/{id}.',
        }),
    },
    write,
  );

export function createSqlSnippetsService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    list: () => repo.listSnippets(deps.sql),

    save: (snippet: { name: string; sql: string }, createdBy: string): Promise<Snippet> =>
      uniqueName(snippet.name, () => repo.insertSnippet(deps.sql, { ...snippet, createdBy }, deps.clock.now())),

    async change(id: string, change: { name?: string; sql?: string }): Promise<Snippet> {
      const changed = await uniqueName(change.name, () => repo.updateSnippet(deps.sql, id, change, deps.clock.now()));
      if (!changed) throw notFound();
      return changed;
    },

    async remove(id: string): Promise<{ message: string }> {
      if (!(await repo.deleteSnippet(deps.sql, id))) throw notFound();
      return { message: 'Snippet deleted successfully.' };
    },
  };
}

export type SqlSnippetsService = ReturnType<typeof createSqlSnippetsService>;
