// What a restore does with the archive's SQL and COPY records, and what it refuses: an unsigned
// archive's SQL must pass the admin SQL guard (no COPY ... PROGRAM, no file or superuser reach);
// every COPY, signed or not, names a table the restored catalog has, with columns it has, and runs
// with the catalog's own quoted names. A failing record is named (its number, kind, table) with
// PostgreSQL's message; the caller's transaction then rolls everything back.
import { pipeline } from 'node:stream/promises';
import type { TransactionSql } from 'postgres';
import { AppError } from '../../core/errors.js';
import { asPgError } from '../../core/pg-errors.js';
import { findViolations, splitStatements } from '../database/index.js';
import { copyTables, type CopyTable, userSchemas } from './table-data.repo.js';
import type { DumpScope } from './dump.service.js';

/** Where a record sits in the archive, for messages: "record 12 (copy into public.notes)". */
export interface RecordPlace {
  index: number;
  kind: 'sql' | 'copy';
  table?: string;
  sql?: string;
}

const describe = (at: RecordPlace) =>
  at.kind === 'copy'
    ? `record ${at.index} (copy into ${at.table})`
    : `record ${at.index} (sql: ${at.sql?.slice(0, 80)})`;
const details = (at: RecordPlace) => ({ record: at.index, kind: at.kind, table: at.table });

const refused = (at: RecordPlace, reason: string) =>
  new AppError('FORBIDDEN', `The backup could not be restored: ${describe(at)} is refused: ${reason}`, {
    details: details(at),
    nextActions:
      'Nothing was changed. An archive imported unsigned may run only what admin SQL runs and copy only into ' +
      'tables it created: restore an archive made, unchanged, by a server of this project instead.',
  });

/** A record PostgreSQL refused: named, with PostgreSQL's message, as a 409 (the transaction is rolled back). */
export function recordFailed(at: RecordPlace, err: unknown): AppError | undefined {
  const pg = asPgError(err);
  if (!pg) return undefined;
  return new AppError(
    'DATABASE_CONSTRAINT_VIOLATION',
    `The backup could not be restored: ${describe(at)} failed: ${pg.message}`,
    {
      details: { ...details(at), sqlState: pg.code },
      nextActions: 'Nothing was changed. Restore another backup, or download this one to inspect it.',
      cause: err,
    },
  );
}

/** Throws unless every statement of an unsigned archive's SQL record passes the admin SQL guard. */
export async function guardRecordSql(at: RecordPlace, text: string): Promise<void> {
  let reason: string | undefined;
  try {
    reason = (await findViolations(await splitStatements(text)))[0]?.reason;
  } catch (err) {
    reason = (err as Error).message; // it does not parse
  }
  if (reason) throw refused(at, reason);
}

/**
 * The tables a COPY may load, looked up in the catalog as it is now (the restored schema grows
 * between phases, so `forget()` after each phase record): the platform's tables but the excluded
 * ones, and the user schemas' tables.
 */
export function copyTargets(tx: TransactionSql, scope: DumpScope) {
  let known: Map<string, CopyTable> | undefined;
  const load = async () => {
    const tables = [
      ...(await copyTables(tx, scope.platformSchemas, scope.excludedTables)),
      ...(await copyTables(tx, await userSchemas(tx, scope.platformSchemas), [])),
    ];
    return new Map(tables.map((t) => [t.name, t]));
  };
  return {
    forget: () => {
      known = undefined;
    },
    /** The COPY statement for a record: the catalog's names, or a refusal naming the record. */
    async statement(at: RecordPlace, table: unknown, columns: unknown): Promise<string> {
      known ??= await load();
      const target = typeof table === 'string' ? known.get(table) : undefined;
      if (!target) throw refused(at, 'it names a table the restored database does not have.');
      const wanted = Array.isArray(columns) ? columns : [];
      const unknown = wanted.find((c) => typeof c !== 'string' || !target.columns.includes(c));
      if (wanted.length === 0 || unknown !== undefined || new Set(wanted).size !== wanted.length)
        throw refused(at, `it names columns the table does not have (${String(unknown ?? 'none')}).`);
      // Only the catalog's own (quoted) names go into the statement, never the archive's text.
      const names = wanted.map((c) => target.columns[target.columns.indexOf(c)]);
      return `copy ${target.name} (${names.join(', ')}) from stdin`;
    },
  };
}

/** Loads a COPY block's rows through `statement`. */
export async function copyRows(tx: TransactionSql, statement: string, rows: AsyncIterable<Buffer>): Promise<void> {
  const target = await tx.unsafe(statement).writable();
  await pipeline(rows, target);
}
