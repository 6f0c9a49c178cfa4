// Where in the editor a statement failed, from what the server says: the failing statement's text
// and the 1-based character position within it (details of a 400), or "Statement N failed" of a
// dry run with its statements. Answers a 1-based line of the editor's text, or undefined.
import { ApiError } from '../../api/client';

interface FailureDetails {
  statement?: number;
  sql?: string;
  position?: string | number;
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, Math.max(0, offset)).split('\n').length;
}

/** The line where `statement` starts in `text`, moved on by `position` characters within it. */
export function lineOfStatement(text: string, statement: string, position?: number): number | undefined {
  const start = text.indexOf(statement.trim());
  if (start < 0) return undefined;
  return lineAt(text, start + (position ? position - 1 : 0));
}

export function errorLineOf(text: string, error: unknown): number | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const details = (error.details ?? {}) as FailureDetails;
  if (typeof details.sql !== 'string') return undefined;
  const position = Number(details.position);
  return lineOfStatement(text, details.sql, Number.isFinite(position) ? position : undefined);
}

/** A failed dry run names its statement in the message ("Statement 2 failed: …"). */
export function dryRunErrorLine(text: string, message: string | undefined, statements: string[]): number | undefined {
  const index = Number(/^Statement (\d+) failed/.exec(message ?? '')?.[1]);
  const statement = statements[index - 1];
  return statement ? lineOfStatement(text, statement) : undefined;
}
