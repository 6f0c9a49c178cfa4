// Splits SQL into statements with the real PostgreSQL parser (libpg-query) and refuses the
// statements an admin's migration or raw query must not run: transaction control (the server
// owns the transaction), role and database management, session settings the server relies on.
// Refusals are 403 FORBIDDEN, as the reference platform answers (api-contract.md §3.2).
import type { ParseResult } from 'libpg-query';
import { AppError } from '../../core/errors.js';
import { loadPgParser, type PgParser } from './pg-parser.js';
import { bodyRefusal } from './sql-bodies.js';
import type { ParsedStatement } from './sql-statement.js';

/** Parses SQL into its statements (comments and empty statements dropped); 403 if it does not parse. */
export async function splitStatements(sql: string): Promise<ParsedStatement[]> {
  // The parser refuses an empty string instead of answering no statements.
  if (sql.trim() === '') return [];
  const parser = await loadPgParser();
  let result: ParseResult;
  try {
    result = await parser.parse(sql);
  } catch (err) {
    const details = (err as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    throw new AppError('FORBIDDEN', `The SQL does not parse: ${(err as Error).message}.`, {
      details: { position: details?.cursorPosition },
      nextActions: 'Fix the syntax error and send the SQL again.',
    });
  }
  // Locations are byte offsets into the UTF-8 text.
  const bytes = Buffer.from(sql, 'utf8');
  return (result.stmts ?? []).map((s) => {
    const start = s.stmt_location ?? 0;
    const end = s.stmt_len ? start + s.stmt_len : bytes.length;
    const node = s.stmt as unknown as Record<string, unknown>;
    return { text: bytes.subarray(start, end).toString('utf8').trim(), kind: Object.keys(node)[0] ?? 'Unknown', node };
  });
}

const TRANSACTION_WORDS: Record<string, string> = {
  TRANS_STMT_BEGIN: 'BEGIN',
  TRANS_STMT_START: 'START TRANSACTION',
  TRANS_STMT_COMMIT: 'COMMIT',
  TRANS_STMT_ROLLBACK: 'ROLLBACK',
  TRANS_STMT_SAVEPOINT: 'SAVEPOINT',
  TRANS_STMT_RELEASE: 'RELEASE SAVEPOINT',
  TRANS_STMT_ROLLBACK_TO: 'ROLLBACK TO SAVEPOINT',
  TRANS_STMT_PREPARE: 'PREPARE TRANSACTION',
  TRANS_STMT_COMMIT_PREPARED: 'COMMIT PREPARED',
  TRANS_STMT_ROLLBACK_PREPARED: 'ROLLBACK PREPARED',
};

/** Statement kinds refused outright, with the reason a caller reads. */
const REFUSED_KINDS: Record<string, string> = {
  CreatedbStmt: 'Creating databases is not allowed.',
  DropdbStmt: 'Dropping databases is not allowed.',
  AlterDatabaseStmt: 'Altering databases is not allowed.',
  AlterDatabaseSetStmt: 'Altering databases is not allowed.',
  AlterDatabaseRefreshCollStmt: 'Altering databases is not allowed.',
  CreateRoleStmt: 'Role management is not allowed.',
  AlterRoleStmt: 'Role management is not allowed.',
  AlterRoleSetStmt: 'Role management is not allowed.',
  DropRoleStmt: 'Role management is not allowed.',
  GrantRoleStmt: 'Granting roles is not allowed.',
  ReassignOwnedStmt: 'Role management (REASSIGN OWNED) is not allowed.',
  DropOwnedStmt: 'Role management (DROP OWNED) is not allowed.',
  AlterSystemStmt: 'ALTER SYSTEM is not allowed.',
  CopyStmt: 'COPY is not allowed; insert rows with INSERT instead.',
  LoadStmt: 'LOAD is not allowed.',
  DiscardStmt: "DISCARD is not allowed (it would break the server's connection).",
  DeallocateStmt: "DEALLOCATE is not allowed (it would break the server's connection).",
  PrepareStmt: "PREPARE is not allowed (a prepared statement would outlive the request on the server's connection).",
  CreatePLangStmt: 'Creating procedural languages is not allowed.',
  CreateFdwStmt: 'Creating foreign-data wrappers is not allowed.',
  AlterFdwStmt: 'Altering foreign-data wrappers is not allowed.',
  CreateForeignServerStmt: 'Foreign servers (connections out of the database) are not allowed.',
  AlterForeignServerStmt: 'Foreign servers (connections out of the database) are not allowed.',
  CreateUserMappingStmt: 'Foreign servers (connections out of the database) are not allowed.',
  AlterUserMappingStmt: 'Foreign servers (connections out of the database) are not allowed.',
  CreateSubscriptionStmt: 'Subscriptions (connections out of the database) are not allowed.',
  AlterSubscriptionStmt: 'Subscriptions (connections out of the database) are not allowed.',
};

/** Functions that reach the server's files, programs, other databases or other sessions, or run SQL from a string. */
const REFUSED_FUNCTIONS = new Set([
  'set_config',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_stat_file',
  'pg_ls_dir',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'pg_ls_archive_statusdir',
  'pg_ls_logicalsnapdir',
  'pg_ls_logicalmapdir',
  'pg_ls_replslotdir',
  'pg_file_write',
  'pg_file_rename',
  'pg_file_unlink',
  'pg_file_sync',
  'pg_logdir_ls',
  'lo_import',
  'lo_export',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'ts_stat',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'dblink_connect_u',
  'dblink_open',
  'dblink_send_query',
]);

/** Extensions that reach outside the database (files, other servers, untrusted languages). */
const REFUSED_EXTENSIONS = new Set([
  'dblink',
  'postgres_fdw',
  'file_fdw',
  'adminpack',
  'plperlu',
  'plpythonu',
  'plpython3u',
  'pltclu',
  'plsh',
]);

const REFUSED_SETTINGS = new Set(['role', 'session_authorization', 'search_path', 'statement_timeout']);

/** Why a statement is refused, or undefined when it may run. */
function refusal(statement: ParsedStatement, parser: PgParser): string | undefined {
  const body = statement.node[statement.kind] as Record<string, unknown> | undefined;
  if (statement.kind === 'TransactionStmt') {
    const word = TRANSACTION_WORDS[String(body?.kind)] ?? 'transaction control';
    return `Transaction control statements are not allowed (${word}); the server runs the SQL in one transaction of its own.`;
  }
  const refused = REFUSED_KINDS[statement.kind];
  if (refused) return refused;
  if (statement.kind === 'VariableSetStmt') {
    if (body?.kind === 'VAR_RESET_ALL') return 'RESET ALL is not allowed.';
    const name = String(body?.name ?? '').toLowerCase();
    if (REFUSED_SETTINGS.has(name)) return `Changing ${name} is not allowed.`;
  }
  if (statement.kind === 'CreateExtensionStmt' && REFUSED_EXTENSIONS.has(String(body?.extname).toLowerCase())) {
    return `The ${String(body?.extname)} extension is not allowed.`;
  }
  if (updatesSettings(statement.node)) return 'Updating pg_settings is not allowed (it is SET in disguise).';
  const called = refusedCall(statement.node);
  if (called) return `${called}() is not allowed.`;
  const check = (inner: ParsedStatement) => refusal(inner, parser);
  return body ? bodyRefusal(parser, statement.kind, body, statement.text, check, REFUSED_FUNCTIONS) : undefined;
}

/** Whether an UPDATE anywhere in the tree targets pg_settings. */
function updatesSettings(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const update = (node as { UpdateStmt?: { relation?: { relname?: string } } }).UpdateStmt;
  if (update?.relation?.relname?.toLowerCase() === 'pg_settings') return true;
  return Object.values(node).some(updatesSettings);
}

/** The first refused function the statement names anywhere in its tree (calls and references). */
function refusedCall(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = refusedCall(item);
      if (found) return found;
    }
    return undefined;
  }
  // Any name node, not only calls: CREATE AGGREGATE (sfunc = set_config) or CREATE OPERATOR
  // (function = …) reach a function by name. String constants are A_Const nodes, not names.
  const name = (node as { String?: { sval?: string } }).String?.sval?.toLowerCase();
  if (name && REFUSED_FUNCTIONS.has(name)) return name;
  return refusedCall(Object.values(node));
}

export interface GuardViolation {
  statement: number;
  sql: string;
  reason: string;
}

/** Every refused statement, numbered from 1. */
export async function findViolations(statements: ParsedStatement[]): Promise<GuardViolation[]> {
  const parser = await loadPgParser();
  return statements.flatMap((s, i) => {
    const reason = refusal(s, parser);
    return reason ? [{ statement: i + 1, sql: s.text, reason }] : [];
  });
}

/** Throws a 403 naming the first refused statement (and listing all of them in details). */
export async function assertAllowed(statements: ParsedStatement[]): Promise<void> {
  const violations = await findViolations(statements);
  const first = violations[0];
  if (!first) return;
  throw new AppError('FORBIDDEN', `${first.reason} (statement ${first.statement}: ${first.sql.slice(0, 80)})`, {
    details: violations,
    nextActions: 'Remove the refused statements and send the SQL again.',
  });
}

/** Parses, refuses empty SQL and dangerous statements; the statements that may run. */
export async function guardedStatements(sql: string): Promise<ParsedStatement[]> {
  const statements = await splitStatements(sql);
  if (statements.length === 0) {
    throw new AppError('VALIDATION_ERROR', 'The SQL contains no statements.', {
      nextActions: 'Write at least one SQL statement (comments alone are not a migration).',
    });
  }
  await assertAllowed(statements);
  return statements;
}
