// Bulk upsert (POST /api/database/advance/bulk-upsert): the file's records grouped by their exact
// column set, one INSERT (or upsert on one key column) per group, all in one transaction as
// project_admin (row-level security applies); any database error writes nothing and answers the
// one table's status (409 duplicate, 403 refused), or 400 for anything else the file or table caused.
import { AppError, type ErrorCode, errorCatalogue } from '../../core/errors.js';
import { asPgError, callerStatementErrorCode } from '../../core/pg-errors.js';
import { actAsProjectAdmin, inAdminTransaction } from './admin-transaction.js';
import type { Deps } from '../../deps.js';
import { recordsOfFile, type FileRecord } from './bulk-records.js';
import { columnTypes, insertGroup } from './bulk-upsert.repo.js';

export interface BulkUpsertInput {
  filename: string;
  text: string;
  schema: string;
  table: string;
  upsertKey?: string;
}

export interface BulkUpsertResult {
  success: true;
  message: string;
  table: string;
  rowsAffected: number;
  totalRecords: number;
  filename: string;
}

/** What the database refused: nothing was written. */
const refused = (message: string, code: ErrorCode = 'VALIDATION_ERROR') =>
  new AppError(code, message, {
    nextActions: 'Nothing was written. Fix the file (or the table) and send it again.',
  });

const invalidName = (what: string) =>
  new AppError('VALIDATION_ERROR', `Invalid ${what} name.`, {
    nextActions: `Send a non-empty ${what} name without double quotes or control characters.`,
  });

function assertName(name: string, what: string): void {
  if (name === '' || /["\u0000-\u001f\u007f]/.test(name)) throw invalidName(what);
}

/** Empty strings and missing values are NULL; objects and arrays travel as JSON text. */
const asText = (v: unknown): string | null =>
  v === undefined || v === null || v === '' ? null : typeof v === 'object' ? JSON.stringify(v) : String(v);

function groupByColumns(records: FileRecord[]): Map<string, FileRecord[]> {
  const groups = new Map<string, FileRecord[]>();
  for (const r of records) {
    const k = JSON.stringify(Object.keys(r));
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return groups;
}

export function createBulkUpsertService(deps: Pick<Deps, 'sql' | 'directSql'>) {
  return async function bulkUpsert(input: BulkUpsertInput): Promise<BulkUpsertResult> {
    assertName(input.schema, 'schema');
    assertName(input.table, 'table');
    const records = recordsOfFile(input.filename, input.text);
    const groups = groupByColumns(records);
    let rowsAffected = 0;
    try {
      await inAdminTransaction(deps.directSql, async (conn) => {
        await actAsProjectAdmin(conn);
        const types = await columnTypes(conn, input.schema, input.table);
        if (types.size === 0) throw refused(`relation "${input.schema}.${input.table}" does not exist`);
        for (const [key, group] of groups) {
          const names = JSON.parse(key) as string[];
          if (input.upsertKey !== undefined && !names.includes(input.upsertKey)) {
            throw new AppError('VALIDATION_ERROR', `Upsert key '${input.upsertKey}' not found in record columns`, {
              nextActions: 'Name a column every record has as upsertKey, or leave it out to insert.',
            });
          }
          const columns = names.map((name) => {
            const type = types.get(name);
            if (!type) throw refused(`column "${name}" of relation "${input.table}" does not exist`);
            return { name, type };
          });
          rowsAffected += await insertGroup(conn, {
            schema: input.schema,
            table: input.table,
            columns,
            rows: group.map((r) => names.map((n) => asText(r[n]))),
            upsertKey: input.upsertKey,
          });
        }
      });
    } catch (err) {
      const pg = asPgError(err);
      const code = pg && callerStatementErrorCode(pg);
      // A lost connection, a shutdown or a timeout is not the file's fault: the error handler says which.
      if (!pg || !code || errorCatalogue[code].status >= 500) throw err;
      throw refused(pg.message, code);
    }
    return {
      success: true,
      message: `Successfully inserted ${rowsAffected} rows into ${input.table}`,
      table: input.table,
      rowsAffected,
      totalRecords: records.length,
      filename: input.filename,
    };
  };
}

export type BulkUpsert = ReturnType<typeof createBulkUpsertService>;
