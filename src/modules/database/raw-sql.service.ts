// Admin SQL (POST /api/database/advance/rawsql): the admin SQL guard, one transaction, a
// statement timeout, search_path public; as project_admin (row-level security applies) or, for
// the unrestricted variant, as the server's own database login. Answers the last statement's rows.
// As project_admin, DDL on the project's own objects in public runs as the owner, as a migration's
// does, so the new-table rules (RLS on, the admin policy, grants) apply alike; any schema change
// is announced to every server's schema cache.
import type postgres from 'postgres';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { actAsOwner, actAsProjectAdmin, inAdminTransaction, runStatement } from './admin-transaction.js';
import { announceSchemaChange } from './schema-version.repo.js';
import { assertProjectDdl, isSchemaChange } from './raw-sql-ddl.js';
import { guardedStatements } from './sql-guard.js';

export interface RawSqlResult {
  rows: Record<string, unknown>[];
  rowCount: number;
  fields: { name: string; dataTypeID: number }[];
}

export function createRawSqlService(
  deps: Pick<Deps, 'sql' | 'directSql' | 'config'>,
  onSchemaChanged: () => Promise<unknown>,
) {
  return async function runRawSql(
    query: string,
    params: unknown[] | undefined,
    as: 'project_admin' | 'owner',
  ): Promise<RawSqlResult> {
    const statements = await guardedStatements(query);
    if (params && params.length > 0 && statements.length > 1) {
      throw new AppError('VALIDATION_ERROR', 'Parameters can only be used with a single statement.', {
        nextActions: 'Send one statement per request when it uses $1, $2… parameters.',
      });
    }
    const changesSchema = statements.some(isSchemaChange);
    if (as === 'project_admin') {
      for (const [i, s] of statements.entries()) if (isSchemaChange(s)) assertProjectDdl(s, i + 1);
    }
    const result = await inAdminTransaction(deps.directSql, async (conn) => {
      await conn`select set_config('statement_timeout', ${String(deps.config.rawSqlTimeoutMs)}, true),
                        set_config('search_path', 'public', true)`;
      let last: postgres.RowList<postgres.Row[]> | undefined;
      let role: 'project_admin' | 'owner' = 'owner';
      for (const [i, s] of statements.entries()) {
        const wanted = as === 'project_admin' && !isSchemaChange(s) ? 'project_admin' : 'owner';
        if (wanted !== role) await (wanted === 'owner' ? actAsOwner(conn) : actAsProjectAdmin(conn));
        role = wanted;
        last = await runStatement(conn, s.text, i + 1, params ?? []);
      }
      if (changesSchema) {
        if (role !== 'owner') await actAsOwner(conn);
        await announceSchemaChange(conn);
      }
      return last!;
    });
    await onSchemaChanged();
    return {
      rows: [...result],
      rowCount: result.count ?? result.length,
      fields: (result.columns ?? []).map((c) => ({ name: c.name, dataTypeID: c.type })),
    };
  };
}

export type RunRawSql = ReturnType<typeof createRawSqlService>;
