// The reply to a records request or a function call, as PostgREST answers: status, headers
// (Content-Range, Preference-Applied, Location, the negotiated Content-Type), and the body the
// statement built, reshaped for a single object or CSV; 206 for a partial page, PGRST103 for an
// offset past the counted rows, PGRST116 when one object was asked for and not one row came.
import type { Preferences } from './grammar/ast.js';
import { CONTENT_TYPES, toCsv, type Media } from './media.js';
import { contentRange, preferenceApplied, type PgrstResponse } from './pgrst-request.js';
import type { RecordsMethod, RecordsPlan } from './plan/request.js';
import type { RpcResultShape } from './plan/types.js';
import { notOneRow, type Answer, type AnswerRow } from './records-execute.js';
import { recordsError } from './records-errors.js';
import type { Table } from './schema-cache.js';
import type { Statement } from './sql/statements.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const totalOf = (row: AnswerRow | undefined) =>
  row?.total === null || row?.total === undefined ? null : Number(row.total);

/** The headers every answer starts from: JSON, and the preferences honoured. */
function baseHeaders(prefs: Preferences, honoured: Parameters<typeof preferenceApplied>[1]): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE };
  const applied = preferenceApplied(prefs, honoured);
  if (applied) headers['preference-applied'] = applied;
  return headers;
}

/**
 * A page of rows at `offset`: its Content-Range, and 206 when it is not all of a known total.
 * `strict`: an offset past the total is PGRST103.
 */
function pageStatus(
  headers: Record<string, string>,
  page: { offset: number; rows: number; total: number | null; strict: boolean },
): number {
  const { offset, rows, total } = page;
  if (page.strict && total !== null && offset > total) {
    throw recordsError('RANGE_NOT_SATISFIABLE', 'PGRST103', 'Requested range not satisfiable', {
      details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
    });
  }
  headers['content-range'] = contentRange(offset, rows, total);
  return total !== null && (offset > 0 || rows < total) ? 206 : 200;
}

/** `/table?pk=eq.value`: where the one row a POST created is read (return=headers-only). */
function locationOf(table: Table, body: string): string {
  const row = (JSON.parse(body) as Record<string, unknown>[])[0]!;
  const filters = table.primaryKey.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(row[k]))}`);
  return `/${encodeURIComponent(table.name)}?${filters.join('&')}`;
}

/** The reply to a records request whose statement answered `answer`. */
export function recordsReply(
  request: { method: RecordsMethod; plan: RecordsPlan; statement: Statement; prefs: Preferences; media: Media },
  answer: Answer,
): PgrstResponse {
  const { method, plan, statement, prefs, media } = request;
  const writing = plan.kind !== 'read';
  const strictLimit = prefs.handling === 'strict' && (method === 'PATCH' || method === 'DELETE');
  const headers = baseHeaders(prefs, { return: true, resolution: true, missing: writing, maxAffected: strictLimit });
  const result = answer.rows[0] as AnswerRow | undefined;
  const pageRows = statement.returnsBody || statement.reportsInserted ? (result?.page_rows ?? 0) : answer.affected;

  let body = statement.returnsBody ? (result?.body ?? undefined) : undefined;
  if (body !== undefined && media !== 'json') {
    if (media === 'object' && pageRows !== 1) throw notOneRow(pageRows);
    body = media === 'object' ? JSON.stringify((JSON.parse(body) as unknown[])[0]) : toCsv(body);
    headers['content-type'] = CONTENT_TYPES[media];
  }

  if (plan.kind === 'read') {
    const page = {
      offset: plan.page.offset ?? 0,
      rows: pageRows,
      total: totalOf(result),
      strict: prefs.count === 'exact',
    };
    const status = pageStatus(headers, page);
    return { status, headers, body: method === 'HEAD' ? undefined : body };
  }
  // As PostgREST: a write's range is empty; its size is the rows changed when counted.
  headers['content-range'] = `*/${prefs.count ? pageRows : '*'}`;
  const representation = prefs.return === 'representation';
  if (method === 'PUT') {
    // As PostgREST 12: 201 when the row was created, else 200 (204 without a body).
    const inserted = statement.reportsInserted ? (result?.inserted ?? 0) > 0 : pageRows > 0;
    const status = inserted ? 201 : representation ? 200 : 204;
    return { status, headers, body: representation ? body : undefined };
  }
  if (method === 'POST') {
    // As PostgREST: an upsert merging duplicates that inserted no row is 200, not 201.
    const status = statement.reportsInserted && (result?.inserted ?? 0) === 0 ? 200 : 201;
    if (prefs.return === 'headers-only' && pageRows === 1 && body !== undefined)
      headers.location = locationOf(plan.table, body);
    return { status, headers, body: representation ? body : undefined };
  }
  return representation ? { status: 200, headers, body } : { status: 204, headers };
}

/** The reply to a call: 204 for void, the value for a scalar, an object or an array. */
export function callReply(
  request: {
    head: boolean;
    functionName: string;
    shape: RpcResultShape;
    offset: number;
    prefs: Preferences;
    media: Media;
  },
  result: AnswerRow | undefined,
): PgrstResponse {
  const { shape, media } = request;
  const headers = baseHeaders(request.prefs, {});
  const withBody = (body: string) => (request.head ? undefined : body);
  if (shape === 'void') return { status: 204, headers: { 'content-range': '0-0/*' } };
  if (shape === 'scalar')
    return { status: 200, headers: { ...headers, 'content-range': '0-0/*' }, body: withBody(result?.body ?? 'null') };

  const pageRows = result?.page_rows ?? 0;
  const status = pageStatus(headers, { offset: request.offset, rows: pageRows, total: totalOf(result), strict: true });
  let body = result?.body ?? '[]';
  if (shape === 'single') {
    body = JSON.stringify((JSON.parse(body) as unknown[])[0] ?? null);
  } else if (media === 'object') {
    if (pageRows !== 1) throw notOneRow(pageRows);
    body = JSON.stringify((JSON.parse(body) as unknown[])[0]);
    headers['content-type'] = CONTENT_TYPES.object;
  } else if (media === 'csv') {
    body = toCsv(body, request.functionName);
    headers['content-type'] = CONTENT_TYPES.csv;
  }
  return { status, headers, body: withBody(body) };
}
