// The SQL hidden in DO blocks and function bodies, for the guard: only sql and plpgsql run;
// a sql body is checked statement by statement, a plpgsql body through its parse tree, and
// dynamic SQL (EXECUTE) is refused because SQL built at run time cannot be checked.
import type { PgParser } from './pg-parser.js';
import type { ParsedStatement } from './sql-statement.js';

const LANGUAGES = new Set(['sql', 'plpgsql']);

type Check = (statement: ParsedStatement) => string | undefined;

interface DefElem {
  DefElem?: {
    defname?: string;
    arg?: { String?: { sval?: string }; List?: { items?: { String?: { sval?: string } }[] } };
  };
}

function option(args: unknown, name: string): DefElem['DefElem'] | undefined {
  return ((args as DefElem[] | undefined) ?? []).map((a) => a.DefElem).find((d) => d?.defname === name);
}

const stringOf = (d: DefElem['DefElem']) => d?.arg?.String?.sval ?? d?.arg?.List?.items?.[0]?.String?.sval;

/** Why a DO block or CREATE FUNCTION/PROCEDURE is refused, or undefined. */
export function bodyRefusal(
  parser: PgParser,
  kind: string,
  body: Record<string, unknown>,
  text: string,
  check: Check,
  deniedFunctions: ReadonlySet<string>,
): string | undefined {
  if (kind !== 'DoStmt' && kind !== 'CreateFunctionStmt') return undefined;
  const args = kind === 'DoStmt' ? body.args : body.options;
  const language = (stringOf(option(args, 'language')) ?? (kind === 'DoStmt' ? 'plpgsql' : 'sql')).toLowerCase();
  if (!LANGUAGES.has(language)) return `Language ${language} is not allowed; write SQL or PL/pgSQL.`;
  const source = stringOf(option(args, 'as'));
  // BEGIN ATOMIC bodies are part of the statement's own parse tree, already checked.
  if (source === undefined) return undefined;
  if (language === 'sql') return inSqlBody(parser, source, check);
  return inPlpgsql(parser, text, check, deniedFunctions);
}

function inSqlBody(parser: PgParser, source: string, check: Check): string | undefined {
  let stmts: { stmt?: unknown; stmt_location?: number; stmt_len?: number }[];
  try {
    stmts = parser.parseSync(source).stmts ?? [];
  } catch {
    return undefined; // PostgreSQL refuses the function itself
  }
  const bytes = Buffer.from(source, 'utf8');
  for (const s of stmts) {
    const start = s.stmt_location ?? 0;
    const node = s.stmt as Record<string, unknown>;
    const text = bytes.subarray(start, s.stmt_len ? start + s.stmt_len : bytes.length).toString('utf8');
    const reason = check({ text, kind: Object.keys(node)[0] ?? 'Unknown', node });
    if (reason) return `In the function body: ${reason}`;
  }
  return undefined;
}

const DYNAMIC = ['PLpgSQL_stmt_dynexecute', 'PLpgSQL_stmt_dynfors'];

function inPlpgsql(
  parser: PgParser,
  text: string,
  check: Check,
  deniedFunctions: ReadonlySet<string>,
): string | undefined {
  let tree: unknown;
  try {
    tree = parser.parsePlPgSQLSync(text);
  } catch {
    return undefined; // PostgreSQL refuses the body itself
  }
  let reason: string | undefined;
  const walk = (node: unknown): void => {
    if (reason || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    const record = node as Record<string, unknown>;
    if (
      DYNAMIC.some((k) => k in record) ||
      (record.PLpgSQL_stmt_open as { dynquery?: unknown } | undefined)?.dynquery
    ) {
      reason = 'Dynamic SQL (EXECUTE) in PL/pgSQL is not allowed: SQL built at run time cannot be checked.';
      return;
    }
    const expr = record.PLpgSQL_expr as { query?: string; parseMode?: number } | undefined;
    if (expr?.query !== undefined) {
      reason = expr.parseMode
        ? inExpression(parser, expr.query, deniedFunctions)
        : inSqlBody(parser, expr.query, check)?.replace('function body', 'PL/pgSQL body');
      return;
    }
    Object.values(record).forEach(walk);
  };
  walk(tree);
  return reason;
}

/** An expression (not a statement) can only do harm by calling a refused function. */
function inExpression(parser: PgParser, query: string, deniedFunctions: ReadonlySet<string>): string | undefined {
  let tokens: { text: string }[];
  try {
    tokens = parser.scanSync(query).tokens;
  } catch {
    return undefined;
  }
  const called = tokens.map((t) => t.text.toLowerCase()).find((w) => deniedFunctions.has(w));
  return called ? `${called}() is not allowed (in the PL/pgSQL body).` : undefined;
}
