// Content negotiation for records answers, as PostgREST does it: the Accept header picks JSON
// (array), one JSON object (vnd.pgrst.object) or CSV; nothing acceptable is 406 PGRST107.
import { recordsError } from './records-errors.js';

export type Media = 'json' | 'object' | 'csv';

const MEDIA: Record<string, Media> = {
  '*/*': 'json',
  'application/*': 'json',
  'application/json': 'json',
  'application/vnd.pgrst.array+json': 'json',
  'application/vnd.pgrst.object+json': 'object',
  'application/vnd.pgrst.object': 'object',
  'text/csv': 'csv',
  'text/*': 'csv',
};

export const CONTENT_TYPES: Record<Media, string> = {
  json: 'application/json; charset=utf-8',
  object: 'application/vnd.pgrst.object+json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/** The answer's media type: the acceptable one of highest quality (the first among equals). */
export function negotiate(accept: string | undefined): Media {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept.split(',').map((part, index) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    // A quality that is no number counts as 1, leniently.
    const quality = q && Number.isFinite(Number(q.slice(2))) && q.length > 2 ? Number(q.slice(2)) : 1;
    return { type, quality, index };
  });
  ranges.sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const range of ranges) {
    const media = Object.hasOwn(MEDIA, range.type) ? MEDIA[range.type] : undefined;
    if (media && range.quality > 0) return media;
  }
  throw recordsError('NOT_ACCEPTABLE', 'PGRST107', `None of these media types are available: ${accept}`);
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A JSON array of objects as CSV: a header of the first row's keys, then one line per row. An
 * array of scalars (a function's `setof integer`) is one column named `scalarName`.
 */
export function toCsv(json: string, scalarName = 'value'): string {
  const parsed = JSON.parse(json) as unknown[];
  if (parsed.length === 0) return '';
  const scalars = typeof parsed[0] !== 'object' || parsed[0] === null || Array.isArray(parsed[0]);
  const rows = (scalars ? parsed.map((v) => ({ [scalarName]: v })) : parsed) as Record<string, unknown>[];
  const keys = Object.keys(rows[0]!);
  const lines = [keys.map(csvField).join(','), ...rows.map((row) => keys.map((k) => csvField(row[k])).join(','))];
  return lines.join('\n');
}

/** One CSV record's fields from `text` at `start`: RFC 4180 quoting; returns the fields and where the next record starts. */
function readRecord(text: string, start: number): { fields: string[]; quoted: boolean[]; next: number } {
  const fields: string[] = [];
  const quoted: boolean[] = [];
  let i = start;
  for (;;) {
    let field = '';
    quoted.push(text[i] === '"');
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length)
          throw recordsError('VALIDATION_ERROR', 'PGRST102', 'Invalid CSV: a quoted field is not closed');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') break;
        else field += text[i++];
      }
      i++;
      if (i < text.length && !',\r\n'.includes(text[i]!))
        throw recordsError('VALIDATION_ERROR', 'PGRST102', 'Invalid CSV: text after a closing quote');
    } else {
      while (i < text.length && !',\r\n'.includes(text[i]!)) field += text[i++];
    }
    fields.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    return { fields, quoted, next: i };
  }
}

/**
 * A CSV request body (PostgREST's bulk insert): a header of column names, then rows; the
 * unquoted word NULL is null, anything else text that PostgreSQL casts to the column's type.
 */
export function fromCsv(text: string): Record<string, string | null>[] {
  let at = 0;
  const header = readRecord(text, at);
  at = header.next;
  const rows: Record<string, string | null>[] = [];
  while (at < text.length) {
    const { fields, quoted, next } = readRecord(text, at);
    at = next;
    if (fields.length === 1 && fields[0] === '' && !quoted[0]) continue; // a blank line
    if (fields.length !== header.fields.length) {
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST102',
        `Invalid CSV: a row has ${fields.length} fields, the header ${header.fields.length}`,
      );
    }
    rows.push(
      Object.fromEntries(
        header.fields.map((name, i) => [name, fields[i] === 'NULL' && !quoted[i] ? null : fields[i]!]),
      ),
    );
  }
  return rows;
}
