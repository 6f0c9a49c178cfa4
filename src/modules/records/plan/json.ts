// A request's JSON value as the text a statement binds, its nesting checked without recursion:
// too deep is a 400 PGRST102 before any connection is taken.
import { AppError } from '../../../core/errors.js';
import { jsonText } from '../../../core/json-guard.js';
import { recordsError } from '../records-errors.js';

export function recordsJsonText(value: unknown, maxDepth?: number): string {
  try {
    return jsonText(value, { maxDepth });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw recordsError('VALIDATION_ERROR', 'PGRST102', err.message, { nextActions: err.nextActions });
  }
}
