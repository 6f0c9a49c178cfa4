// The records pipeline: parse the request (PostgREST grammar) → plan it against the schema cache
// → one SQL statement → run it in a transaction scoped to the caller's role and claims (row-level
// security decides) → answer as PostgREST would.
import type { Deps } from '../../deps.js';
import type { Principal } from '../../http/principal.js';
import type { ParsedQuery, Preferences, SelectItem } from './grammar/ast.js';
import { scopeOf } from '../../http/request-scope.js';
import {
  applyRange,
  contentRange,
  parse,
  preferenceApplied,
  preferencesOf,
  type PgrstHeaders,
  type PgrstResponse,
} from './pgrst-request.js';
import { CONTENT_TYPES, negotiate, toCsv, type Media } from './media.js';
import { putRow } from './put.js';
import { execute, notOneRow, type AnswerRow, type ExecuteOptions } from './records-execute.js';
import { fromPostgresError, recordsError } from './records-errors.js';
import { qualified, type SchemaCache, type Table } from './schema-cache.js';
import type { TimezoneCheck } from './timezone.js';
import {
  deleteStatement,
  insertStatement,
  plannedCountStatement,
  readStatement,
  updateStatement,
  type Statement,
} from './sql/statements.js';

export type RecordsMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RecordsRequest {
  method: RecordsMethod;
  table: string;
  query: [string, string][];
  headers: PgrstHeaders;
  body: unknown;
  principal: Principal;
}

export type RecordsResponse = PgrstResponse;

/** The preferences this request honoured, as PostgREST lists them in Preference-Applied. */
/** What a records request honours besides the preferences every request honours. */
function honoured(prefs: Preferences, method: RecordsMethod) {
  const writing = method !== 'GET' && method !== 'HEAD';
  const strictLimit = prefs.handling === 'strict' && (method === 'PATCH' || method === 'DELETE');
  return { return: true, resolution: true, missing: writing, maxAffected: strictLimit };
}

/** `/table?pk=eq.value`: where the one row a POST created is read (return=headers-only). */
function locationOf(table: Table, body: string): string {
  const row = (JSON.parse(body) as Record<string, unknown>[])[0]!;
  const filters = table.primaryKey.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(row[k]))}`);
  return `/${encodeURIComponent(table.name)}?${filters.join('&')}`;
}

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

export type RecordsService = ReturnType<typeof createRecordsService>;

export function createRecordsService(
  deps: Pick<Deps, 'sql' | 'config'>,
  cache: SchemaCache,
  options: { maxRows: number; schemas: string[]; timezones: TimezoneCheck },
) {
  const { timezones } = options;
  async function tableOf(schema: string, name: string): Promise<Table> {
    if (!options.schemas.includes(schema)) {
      throw recordsError(
        'NOT_ACCEPTABLE',
        'PGRST106',
        `The schema must be one of the following: ${options.schemas.join(', ')}`,
      );
    }
    let table = cache.current().tables.get(qualified(schema, name));
    // A table created a moment ago may not have reached this server's cache yet. Look again even
    // when this refresh found nothing new: a reload (NOTIFY) may have landed while it asked.
    if (!table) {
      await cache.refreshIfChanged();
      table = cache.current().tables.get(qualified(schema, name));
    }
    if (!table) {
      throw recordsError('NOT_FOUND', 'PGRST205', `Could not find the table '${schema}.${name}' in the schema cache`, {
        hint: 'Check the table name, or create it with a migration.',
      });
    }
    return table;
  }

  /** What keeps the transaction open past one round trip: planned counts, max-affected, rollback. */
  function executeOptions(
    req: RecordsRequest,
    table: Table,
    query: ParsedQuery,
    prefs: Preferences,
    media: Media,
  ): ExecuteOptions {
    const snapshot = cache.current();
    const reading = req.method === 'GET' || req.method === 'HEAD';
    const planned =
      reading && (prefs.count === 'planned' || prefs.count === 'estimated')
        ? {
            count: plannedCountStatement(snapshot, table, query),
            exact:
              prefs.count === 'estimated'
                ? readStatement(snapshot, table, query, { maxRows: options.maxRows, count: true })
                : undefined,
            exactUpTo: options.maxRows,
          }
        : undefined;
    const limited =
      prefs.handling === 'strict' && (req.method === 'PATCH' || req.method === 'DELETE')
        ? prefs.maxAffected
        : undefined;
    // A write answering one object must change exactly one row, or nothing (PostgREST rolls back).
    const oneRow = !reading && prefs.return === 'representation' && media === 'object';
    return { planned, maxAffected: limited, rollback: prefs.tx === 'rollback', oneRow };
  }

  function statementFor(req: RecordsRequest, table: Table, query: ParsedQuery, prefs: Preferences): Statement {
    const snapshot = cache.current();
    const representation = prefs.return === 'representation';
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        return readStatement(snapshot, table, query, { maxRows: options.maxRows, count: prefs.count === 'exact' });
      case 'POST': {
        const rows = Array.isArray(req.body) ? req.body : [req.body];
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
        return insertStatement(snapshot, table, shaped, rows, {
          columns,
          representation: representation || locating,
          resolution: prefs.resolution,
          missingDefault: prefs.missing === 'default',
        });
      }
      case 'PUT': {
        const row = putRow(table, query, req.body);
        const upsert = { ...query, onConflict: table.primaryKey };
        return insertStatement(snapshot, table, upsert, [row], {
          columns: Object.keys(row),
          representation,
          resolution: 'merge-duplicates',
        });
      }
      case 'PATCH': {
        if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
          throw recordsError('VALIDATION_ERROR', 'PGRST102', 'The body of an update must be a JSON object');
        }
        return updateStatement(snapshot, table, query, req.body as Record<string, unknown>, representation);
      }
      case 'DELETE':
        return deleteStatement(snapshot, table, query, representation);
    }
  }

  return {
    async handle(req: RecordsRequest): Promise<RecordsResponse> {
      const reading = req.method === 'GET' || req.method === 'HEAD';
      const schema =
        req.query.find(([key]) => key === 'schema')?.[1] ??
        (reading ? req.headers.acceptProfile : req.headers.contentProfile) ??
        options.schemas[0]!;
      const table = await tableOf(schema, req.table);
      const media = negotiate(req.headers.accept);
      const { scope, prefs } = await timezones.apply(
        scopeOf(req.principal, deps.config.statementTimeouts),
        preferencesOf(req.headers.prefer),
      );
      const query = applyRange(parse(req.query), reading ? req.headers.range : undefined);
      const statement = statementFor(req, table, query, prefs);

      let rows: AnswerRow[];
      let affected: number;
      try {
        ({ rows, affected } = await execute(
          deps.sql,
          scope,
          statement,
          executeOptions(req, table, query, prefs, media),
        ));
      } catch (err) {
        throw fromPostgresError(err, req.principal.kind === 'anon') ?? err;
      }

      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      const applied = preferenceApplied(prefs, honoured(prefs, req.method));
      if (applied) headers['preference-applied'] = applied;
      const result = rows[0];
      const pageRows = statement.returnsBody || statement.reportsInserted ? (result?.page_rows ?? 0) : affected;
      const total = result?.total === null || result?.total === undefined ? null : Number(result.total);

      let body = statement.returnsBody ? result?.body : undefined;
      if (body !== undefined && media !== 'json') {
        if (media === 'object' && pageRows !== 1) throw notOneRow(pageRows);
        body = media === 'object' ? JSON.stringify((JSON.parse(body) as unknown[])[0]) : toCsv(body);
        headers['content-type'] = CONTENT_TYPES[media];
      }

      if (reading) {
        const offset = query.paging.find((p) => p.path.length === 0)?.offset ?? 0;
        if (total !== null && prefs.count === 'exact' && offset > total) {
          throw recordsError('RANGE_NOT_SATISFIABLE', 'PGRST103', 'Requested range not satisfiable', {
            details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
          });
        }
        headers['content-range'] = contentRange(offset, pageRows, total);
        const partial = total !== null && (offset > 0 || pageRows < total);
        return { status: partial ? 206 : 200, headers, body: req.method === 'HEAD' ? undefined : body };
      }
      // As PostgREST: a write's range is empty; its size is the rows changed when counted.
      headers['content-range'] = `*/${prefs.count ? pageRows : '*'}`;
      if (req.method === 'PUT') {
        // As PostgREST 12: 201 when the row was created, else 200 (204 without a body).
        const inserted = statement.reportsInserted ? (result?.inserted ?? 0) > 0 : pageRows > 0;
        const status = inserted ? 201 : prefs.return === 'representation' ? 200 : 204;
        return { status, headers, body: prefs.return === 'representation' ? body : undefined };
      }
      if (req.method === 'POST') {
        // As PostgREST: an upsert merging duplicates that inserted no row is 200, not 201.
        const status = statement.reportsInserted && (result?.inserted ?? 0) === 0 ? 200 : 201;
        if (prefs.return === 'headers-only' && pageRows === 1 && body !== undefined)
          headers.location = locationOf(table, body);
        return { status, headers, body: prefs.return === 'representation' ? body : undefined };
      }
      return prefs.return === 'representation' ? { status: 200, headers, body } : { status: 204, headers };
    },
  };
}
