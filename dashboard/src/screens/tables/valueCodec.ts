// Type-aware editing of one column's value: which input a column gets, the text an input shows
// for a stored value, and the JSON value to send for what the admin typed (or why it is invalid).
import type { ColumnInfo } from './tableApi';

export type ValueKind = 'enum' | 'array' | 'json' | 'boolean' | 'datetime' | 'timestamp' | 'date' | 'number' | 'text';

export function kindOf(column: Pick<ColumnInfo, 'type' | 'enumValues'>): ValueKind {
  const type = column.type;
  if (column.enumValues) return 'enum';
  if (type.endsWith('[]')) return 'array';
  if (type === 'json' || type === 'jsonb') return 'json';
  if (type === 'boolean') return 'boolean';
  if (type.startsWith('timestamp')) return type.includes('with time zone') ? 'datetime' : 'timestamp';
  if (type === 'date') return 'date';
  if (/^(smallint|integer|bigint|real|double precision|numeric)/.test(type)) return 'number';
  return 'text';
}

/** The text an input shows for a stored value (timestamps with time zone in UTC). */
export function toInputText(kind: ValueKind, value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (kind) {
    case 'json':
    case 'array':
      return JSON.stringify(value, null, 2);
    case 'datetime': {
      const date = new Date(String(value));
      return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().slice(0, 19);
    }
    case 'timestamp':
      return String(value).slice(0, 19);
    default:
      return String(value);
  }
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** The value to send for an input's text. */
export function fromInputText(kind: ValueKind, text: string): Parsed {
  switch (kind) {
    case 'json':
    case 'array': {
      try {
        const value = JSON.parse(text);
        if (kind === 'array' && !Array.isArray(value))
          return { ok: false, error: 'Must be a JSON array, e.g. ["a", "b"]' };
        return { ok: true, value };
      } catch {
        return { ok: false, error: 'Not valid JSON' };
      }
    }
    case 'number': {
      const value = Number(text);
      return text.trim() === '' || Number.isNaN(value) ? { ok: false, error: 'Must be a number' } : { ok: true, value };
    }
    case 'boolean':
      return { ok: true, value: text === 'true' };
    case 'datetime': {
      const date = new Date(`${text}Z`);
      return Number.isNaN(date.getTime())
        ? { ok: false, error: 'Not a date and time' }
        : { ok: true, value: date.toISOString() };
    }
    default:
      return { ok: true, value: text };
  }
}

/** A short rendering of a value in a grid cell. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
