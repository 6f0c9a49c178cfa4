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
