// Collects the bound parameters of one statement; every request value goes through here, as a
// scalar or a flat list of text: the driver is never handed an object or a nested array to walk.
import { AppError } from '../../../core/errors.js';
import { jsonText } from '../../../core/json-guard.js';
import { recordsError } from '../records-errors.js';

/** What a statement binds: postgres.js serialises these without recursing. */
export type ParamValue = string | number | null | readonly string[];

export class Params {
  readonly values: ParamValue[] = [];

  /** `$n` for this value. */
  add(value: ParamValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /**
   * `$n::text` for a JSON value (cast it on: `::json`, `::jsonb`), bound as its text; nested
   * deeper than `maxDepth` is a 400 PGRST102 before any connection is taken.
   */
  addJson(value: unknown, maxDepth?: number): string {
    return `${this.add(recordsJsonText(value, maxDepth))}::text`;
  }
}

/** A JSON value as text, nesting checked without recursion; too deep is a 400 PGRST102. */
export function recordsJsonText(value: unknown, maxDepth?: number): string {
  try {
    return jsonText(value, { maxDepth });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw recordsError('VALIDATION_ERROR', 'PGRST102', err.message, { nextActions: err.nextActions });
  }
}

/**
 * An identifier already checked against the schema cache (or an alias the caller chose), quoted
 * for SQL. PostgreSQL cannot take a NUL in a statement's text at all.
 */
export function ident(name: string): string {
  if (name.includes('\u0000'))
    throw recordsError('VALIDATION_ERROR', 'PGRST100', 'A name may not contain a NUL character');
  return `"${name.replaceAll('"', '""')}"`;
}
