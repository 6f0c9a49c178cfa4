// The records of a bulk-upsert file, by its extension: `.csv` (a header row names the columns;
// quoted fields with "" escapes, CRLF or LF, a BOM, empty lines skipped; every value a string) or
// `.json` (an array of objects, or one object). Refusals are 400s that say how to fix the file.
import { AppError } from '../../core/errors.js';

export type FileRecord = Record<string, unknown>;

const unsupported = () =>
  new AppError('VALIDATION_ERROR', 'Unsupported file type. Use .csv or .json', {
    nextActions: 'Send the rows as a .csv file with a header row, or as a .json array of objects.',
  });

const parseFailure = (ext: string, reason: string) =>
  new AppError('VALIDATION_ERROR', `Failed to parse .${ext} file: ${reason}`, {
    nextActions: `Fix the .${ext} file and send it again.`,
  });

/** The rows of CSV text as arrays of fields. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(field);
    field = '';
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (quoted) throw new Error('a quoted field is not closed');
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

function csvRecords(text: string): FileRecord[] {
  const [header, ...rows] = csvRows(text);
  if (!header) return [];
  return rows.map((fields, n) => {
    if (fields.length > header.length) throw new Error(`row ${n + 2} has more fields than the header`);
    return Object.fromEntries(header.map((name, i) => [name, fields[i]]));
  });
}

function jsonRecords(text: string): FileRecord[] {
  const value: unknown = JSON.parse(text);
  const list = Array.isArray(value) ? value : [value];
  for (const [i, item] of list.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Error(`item ${i} is not an object`);
  }
  return list as FileRecord[];
}

/** Parses the file by its extension; at least one record, or a 400. */
export function recordsOfFile(filename: string, text: string): FileRecord[] {
  const ext = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase();
  if (ext !== 'csv' && ext !== 'json') throw unsupported();
  let records: FileRecord[];
  try {
    records = ext === 'csv' ? csvRecords(text) : jsonRecords(text);
  } catch (err) {
    throw parseFailure(ext, (err as Error).message);
  }
  if (records.length === 0) {
    throw new AppError('VALIDATION_ERROR', 'No records found in file', {
      nextActions: 'Put at least one row under the header (CSV) or one object in the array (JSON).',
    });
  }
  return records;
}
