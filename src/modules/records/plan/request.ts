// A records request planned by its method: the body checked for its shape (PGRST102), the
// columns an insert writes (`columns=`, else the body's keys, the same in every object), the
// primary key selected for a Location (return=headers-only), PUT's single-row rules.
import type { ParsedQuery, Preferences, SelectItem } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { SchemaSnapshot, Table } from '../schema-cache.js';
import { putRow } from './put.js';
import { planRead } from './reads.js';
import type { ReadPlan, WritePlan } from './types.js';
import { planDelete, planInsert, planUpdate } from './writes.js';

export type RecordsMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type RecordsPlan = ReadPlan | WritePlan;

/** The keys of a bulk body's objects: the same in each, else PGRST102 as PostgREST answers. */
function bodyKeys(rows: object[]): string[] {
  const keys = Object.keys(rows[0]!);
  if (rows.length === 1) return keys;
  const canonical = [...keys].sort().join('\u0000');
  if (rows.some((r) => Object.keys(r).sort().join('\u0000') !== canonical)) {
    throw recordsError('VALIDATION_ERROR', 'PGRST102', 'All object keys must match', {
      hint: 'Give every object the same keys, or name the columns with ?columns=.',
    });
  }
  return keys;
}

function planPost(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, body: unknown, prefs: Preferences) {
  const rows = Array.isArray(body) ? body : [body];
  if (rows.length === 0 || !rows.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) {
    throw recordsError(
      'VALIDATION_ERROR',
      'PGRST102',
      'The body must be a JSON object or a non-empty array of objects',
    );
  }
  // `columns=` names the columns (a key a row lacks is NULL there, or its DEFAULT with
  // missing=default); without it every object must have the same keys, as in PostgREST.
  const columns = query.columns ?? bodyKeys(rows as object[]);
  // return=headers-only: the primary key comes back, for the Location of the new row.
  const locating = prefs.return === 'headers-only' && table.primaryKey.length > 0;
  const shaped = locating
    ? {
        ...query,
        select: table.primaryKey.map((column): SelectItem => ({ kind: 'field', field: { column, json: [] } })),
      }
    : query;
  return planInsert(snapshot, table, shaped, rows, {
    columns,
    representation: prefs.return === 'representation' || locating,
    resolution: prefs.resolution,
    missingDefault: prefs.missing === 'default',
  });
}

/** The plan of one records request on `table`, or the schema and request errors PostgREST answers. */
export function planRecords(
  snapshot: SchemaSnapshot,
  request: { method: RecordsMethod; query: ParsedQuery; body: unknown; prefs: Preferences; maxRows: number },
  table: Table,
): RecordsPlan {
  const { query, body, prefs } = request;
  const representation = prefs.return === 'representation';
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      return planRead(snapshot, table, query, request.maxRows);
    case 'POST':
      return planPost(snapshot, table, query, body, prefs);
    case 'PUT': {
      const row = putRow(table, query, body);
      const upsert = { ...query, onConflict: table.primaryKey };
      return planInsert(snapshot, table, upsert, [row], {
        columns: Object.keys(row),
        representation,
        resolution: 'merge-duplicates',
      });
    }
    case 'PATCH':
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw recordsError('VALIDATION_ERROR', 'PGRST102', 'The body of an update must be a JSON object');
      }
      return planUpdate(snapshot, table, query, body as Record<string, unknown>, representation);
    case 'DELETE':
      return planDelete(snapshot, table, query, representation);
  }
}
