// Collects the bound parameters of one statement; every request value goes through here.
import { recordsError } from '../records-errors.js';

export class Params {
  readonly values: unknown[] = [];

  /** `$n` for this value. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * An identifier already checked against the schema cache (or an alias the caller chose), quoted
 * for SQL. PostgreSQL cannot take a NUL in a statement's text at all.
 */
export function ident(name: string): string {
  if (name.includes('\u0000')) throw recordsError('VALIDATION_ERROR', 'PGRST100', 'A name may not contain a NUL character');
  return `"${name.replaceAll('"', '""')}"`;
}
