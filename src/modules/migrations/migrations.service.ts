// Applying the developer's migrations: parse and guard the SQL, then in one transaction holding
// the history's advisory lock check the version, run every statement with search_path public,
// record the history row and announce the schema change; any failure leaves no trace.
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import {
  announceSchemaChange,
  type Conn,
  findViolations,
  guardedStatements,
  inAdminTransaction,
  type ParsedStatement,
  runStatement,
  splitStatements,
} from '../database/index.js';
import { assessRisks, riskLevel } from './migration-risks.js';
import * as repo from './migrations.repo.js';
import type { AppliedMigration, DryRunResult } from './migrations.schemas.js';

export interface NewMigration {
  version: string;
  name: string;
  sql: string;
}

const NOT_NEWER = 'Migration version must be newer than the latest applied migration.';

async function runAll(conn: Conn, statements: ParsedStatement[]): Promise<void> {
  await conn`set local search_path to public`;
  for (const [i, s] of statements.entries()) await runStatement(conn, s.text, i + 1);
}

export function createMigrationsService(
  deps: Pick<Deps, 'sql' | 'directSql' | 'clock'>,
  onSchemaChanged: () => Promise<unknown>,
) {
  return {
    list: () => repo.listApplied(deps.sql),

    /** Empties the history so migrations/ can be applied again to a dropped schema (local resets). */
    forget: () =>
      inAdminTransaction(deps.directSql, async (conn) => {
        await repo.lockHistory(conn);
        return repo.forgetApplied(conn);
      }),

    async apply(m: NewMigration): Promise<AppliedMigration> {
      const statements = await guardedStatements(m.sql);
      const applied = await inAdminTransaction(deps.directSql, async (conn) => {
        await repo.lockHistory(conn);
        const latest = await repo.latestVersion(conn);
        if (latest !== undefined && BigInt(m.version) <= BigInt(latest)) {
          throw new AppError('DATABASE_MIGRATION_ALREADY_EXISTS', NOT_NEWER, {
            details: { version: m.version, latestVersion: latest },
            nextActions: `Use a version newer than ${latest}; applied migrations are never edited, so write a new forward migration.`,
          });
        }
        await runAll(conn, statements);
        await announceSchemaChange(conn);
        return repo.insertApplied(
          conn,
          { version: m.version, name: m.name, statements: statements.map((s) => s.text) },
          deps.clock.now(),
        );
      });
      // This server sees the new schema before answering; the others hear the NOTIFY.
      await onSchemaChanged();
      return applied;
    },

    /** Admin-only, so never limited per IP (api-contract Part A item 16). */
    async dryRun(sql: string): Promise<DryRunResult> {
      let statements: ParsedStatement[];
      try {
        statements = await splitStatements(sql);
      } catch (err) {
        const error = (err as Error).message;
        return {
          valid: false,
          statementCount: 0,
          statements: [],
          riskLevel: 'DANGER',
          riskFactors: [{ code: 'SYNTAX_OR_EXECUTION_ERROR', description: error, level: 'DANGER' }],
          error,
        };
      }
      const texts = statements.map((s) => s.text);
      const result = (valid: boolean, riskFactors: DryRunResult['riskFactors'], error?: string): DryRunResult => ({
        valid,
        statementCount: texts.length,
        statements: texts,
        riskLevel: riskLevel(riskFactors),
        riskFactors,
        ...(error !== undefined ? { error } : {}),
      });
      if (statements.length === 0) {
        return result(
          false,
          [{ code: 'EMPTY_SQL', description: 'The SQL contains no statements.', level: 'DANGER' }],
          'The SQL contains no statements.',
        );
      }
      const violations = await findViolations(statements);
      if (violations.length > 0) {
        const factors = violations.map((v) => ({
          code: 'GUARD_VIOLATION' as const,
          description: v.reason,
          level: 'DANGER' as const,
          statement: v.sql,
        }));
        return result(false, factors, violations[0]!.reason);
      }
      const risks = assessRisks(statements);
      try {
        await inAdminTransaction(deps.directSql, (conn) => runAll(conn, statements), { rollback: true });
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        return result(
          false,
          [...risks, { code: 'SYNTAX_OR_EXECUTION_ERROR', description: err.message, level: 'DANGER' }],
          err.message,
        );
      }
      return result(true, risks);
    },
  };
}

export type MigrationsService = ReturnType<typeof createMigrationsService>;
