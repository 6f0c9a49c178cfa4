// The limit's records routes: for each records scenario, the statement Plinth runs (captured
// from Plinth's records service, bench/lib/records.ts) with the same scope statement, role and
// claims, in a transaction envelope, and nothing else: no parsing of the PostgREST grammar, no
// planning, no validation. The envelope is the fastest safe one postgres.js offers; the others
// stay reachable under /variant/<name>/… so that `BENCH_ENVELOPES=1` can compare them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type postgres from 'postgres';
import type { CapturedStatement, RecordsStatements } from './records.js';
import { RECORDS_PATH } from './records.js';

/** The verified claims of a user's access token, as the limit reads them. */
export interface UserClaims {
  sub: string;
  email: string;
  role: string;
  sid: string;
  /** The session's assurance level (RLS can ask for aal2); aal1 when the token says nothing. */
  aal?: string;
  is_anonymous?: boolean;
}

type Rows = postgres.RowList<postgres.Row[]>;

/** Runs `statement` scoped to `claims` (role `authenticated`), all-or-nothing. */
type Envelope = (
  sql: postgres.Sql,
  scope: CapturedStatement,
  claims: string,
  statement: CapturedStatement,
) => Promise<Rows>;

/** The scope statement's parameters as Plinth bound them (role, then statement timeout…), with these claims. */
const scopeParams = (scope: CapturedStatement, claims: string) =>
  [scope.params[0], claims, ...scope.params.slice(2)] as string[];

/** Awaits every step (so the connection is idle before it goes back), then fails with the first failure. */
async function settled<T>(steps: Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<T>).value);
}

/**
 * A reserved connection, with BEGIN, the scope statement, the statement and COMMIT written at
 * once: one round trip. PostgreSQL runs them in order; if the scope or the statement fails, the
 * transaction is aborted, what follows fails, and COMMIT rolls back. `prepare` makes the
 * statement a named prepared statement (parsed and planned once per connection); unprepared,
 * postgres.js asks for its parameter types first (Parse/Describe, then Bind/Execute) and holds
 * what follows until it is done: two round trips more.
 */
const pipelined =
  (prepare: boolean): Envelope =>
  async (sql, scope, claims, statement) => {
    const tx = await sql.reserve();
    try {
      // Queries are written in the order they are executed.
      const steps = [
        tx.unsafe('begin').execute(),
        tx.unsafe(scope.text, scopeParams(scope, claims), { prepare: true }).execute(),
        tx.unsafe(statement.text, statement.params as never[], { prepare }).execute(),
        tx.unsafe('commit').execute(),
      ];
      return (await settled<Rows>(steps))[2]!;
    } finally {
      tx.release();
    }
  };

/**
 * A reserved connection, BEGIN, the scope statement and the statement (prepared) written at once,
 * then COMMIT once they are answered: two round trips. This is what Plinth's withRequestScope
 * (core/db.ts) does, whose work may run more than one query, so it cannot send COMMIT early.
 */
const commitAfter: Envelope = async (sql, scope, claims, statement) => {
  const tx = await sql.reserve();
  try {
    const steps = [
      tx.unsafe('begin').execute(),
      tx.unsafe(scope.text, scopeParams(scope, claims), { prepare: true }).execute(),
      tx.unsafe(statement.text, statement.params as never[], { prepare: true }).execute(),
    ];
    let rows: Rows;
    try {
      rows = (await settled<Rows>(steps))[2]!;
    } catch (err) {
      await tx.unsafe('rollback').catch(() => {});
      throw err;
    }
    await tx.unsafe('commit');
    return rows;
  } finally {
    tx.release();
  }
};

/**
 * sql.begin: BEGIN and its answer, then the scope statement and the statement pipelined (the
 * statement is started here, before the scope statement's answer), then COMMIT and its answer.
 */
const begin =
  (prepare: boolean): Envelope =>
  (sql, scope, claims, statement) =>
    sql.begin(async (tx) => {
      const scoped = tx.unsafe(scope.text, scopeParams(scope, claims), { prepare: true }).execute();
      const result = tx.unsafe(statement.text, statement.params as never[], { prepare }).execute();
      await scoped;
      return result;
    }) as Promise<Rows>;

/** A value as an SQL string literal (standard_conforming_strings is on); objects as JSON text. */
function literal(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.includes('\0')) throw new Error('NUL in a value');
  return `'${text.replaceAll("'", "''")}'`;
}

/** `$n` of a captured statement replaced by its value as a literal (the statements have no `$` in literals). */
const inlined = (statement: CapturedStatement, params: unknown[]) =>
  statement.text.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));

/**
 * One simple-protocol message, the scope statement and the statement with their values inlined as
 * literals: PostgreSQL runs a multi-statement message as one implicit transaction, so the local
 * settings hold for the statement and end with it. One round trip, no reserved connection, but
 * parsed and planned every time and values pasted into SQL text (escaped): shown for comparison,
 * not the limit.
 */
const simple: Envelope = async (sql, scope, claims, statement) => {
  const result = await sql.unsafe(
    `${inlined(scope, scopeParams(scope, claims))}; ${inlined(statement, statement.params)}`,
  );
  // postgres.js answers one result per statement that returned rows, else one result whose count
  // is the last statement's (an insert without RETURNING).
  return (Array.isArray(result[0]) ? result[result.length - 1] : result) as Rows;
};

export const ENVELOPES = {
  /** The limit. */
  pipelined: pipelined(true),
  /** Plinth's envelope (withRequestScope, core/db.ts). */
  'commit-after': commitAfter,
  'pipelined-unprepared': pipelined(false),
  'begin-prepared': begin(true),
  'begin-unprepared': begin(false),
  simple,
} satisfies Record<string, Envelope>;

export type EnvelopeName = keyof typeof ENVELOPES;

export const ENVELOPE_TEXT: Record<EnvelopeName, string> = {
  pipelined: 'reserved connection, BEGIN + scope + statement (prepared) + COMMIT written at once: one round trip',
  'commit-after':
    "reserved connection, BEGIN + scope + statement (prepared) written at once, COMMIT after their answers, as Plinth's withRequestScope (core/db.ts) does: two round trips",
  'pipelined-unprepared':
    'reserved connection, BEGIN + scope + statement (unprepared) + COMMIT pipelined; postgres.js sends an unprepared statement with parameters as Parse/Describe, then Bind/Execute, and holds COMMIT until it is done: three round trips',
  'begin-prepared': 'sql.begin: BEGIN, then scope + statement (prepared) pipelined, then COMMIT: three round trips',
  'begin-unprepared':
    "sql.begin: BEGIN, then scope + the statement's Parse/Describe, its Bind/Execute, then COMMIT: four round trips",
  simple:
    'one simple-protocol message (scope; statement) with values inlined as literals, implicit transaction: one round trip, planned every time',
};

/** The limit's envelope for the records scenarios. */
export const LIMIT_ENVELOPE: EnvelopeName = 'pipelined';

/** Prefix of the records route of an envelope on the limit server (none for the limit's own). */
export const envelopePrefix = (name: EnvelopeName) => (name === LIMIT_ENVELOPE ? '' : `/variant/${name}`);

/** The claims JSON Plinth publishes for a user (scopeOf in src/core/principal.ts), same key order. */
export const scopeClaims = (c: UserClaims) =>
  JSON.stringify({
    sub: c.sub,
    email: c.email,
    role: 'authenticated',
    sid: c.sid,
    aal: c.aal === 'aal2' ? 'aal2' : 'aal1',
    is_anonymous: c.is_anonymous === true,
  });

/** A read's answer as PostgREST sends it: the JSON text, with the Content-Range of its `rows` rows. */
export const sendRows = (reply: FastifyReply, body: string, rows: number) =>
  reply
    .code(200)
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-range', rows === 0 ? '*/*' : `0-${rows - 1}/*`)
    .send(body);

/** An insert's answer with return=minimal: 201, uncounted (as PostgREST answers a write without Prefer: count). */
export const sendInserted = (reply: FastifyReply) =>
  reply.code(201).header('content-type', 'application/json; charset=utf-8').header('content-range', '*/*').send();

export interface RecordsRoutesOptions {
  /** The token check (the limit's verify); null when invalid. */
  verify(token: string): UserClaims | null;
  /** The statements, once setup has made the table and captured them. */
  statements(): RecordsStatements | undefined;
}

export function recordsRoutes(app: FastifyInstance, sql: postgres.Sql, o: RecordsRoutesOptions): void {
  const scoped = (request: FastifyRequest, reply: FastifyReply) => {
    const claims = o.verify(request.headers.authorization?.slice('Bearer '.length) ?? '');
    if (claims?.role !== 'authenticated' || typeof claims.email !== 'string') {
      reply.code(401).send({ error: 'UNAUTHORIZED' });
      return undefined;
    }
    const statements = o.statements();
    if (!statements) {
      reply.code(503).send({ error: 'NOT_READY' });
      return undefined;
    }
    return { claims: scopeClaims(claims), statements };
  };

  for (const [name, envelope] of Object.entries(ENVELOPES) as [EnvelopeName, Envelope][]) {
    const path = envelopePrefix(name) + RECORDS_PATH;

    // records-read-one (?id=eq.<id>) and records-list-20 (the list query, fixed parameters).
    app.get(path, async (request, reply) => {
      const scope = scoped(request, reply);
      if (!scope) return reply;
      const { readOne, list } = scope.statements;
      const id = (request.query as { id?: string }).id;
      let statement: CapturedStatement = list;
      if (id !== undefined) {
        if (!id.startsWith('eq.')) return reply.code(400).send({ error: 'VALIDATION_ERROR' });
        const params = [...readOne.params];
        params[readOne.idIndex] = id.slice(3);
        statement = { text: readOne.text, params };
      }
      const [row] = await envelope(sql, scope.statements.scope, scope.claims, statement);
      return sendRows(reply, row?.body as string, Number(row?.page_rows ?? 0));
    });

    // records-insert-one: the body, as the one row of the statement's json parameter; return=minimal.
    app.post(path, async (request, reply) => {
      const scope = scoped(request, reply);
      if (!scope) return reply;
      const { insertOne } = scope.statements;
      const params = [...insertOne.params];
      params[insertOne.bodyIndex] = JSON.stringify([request.body]);
      await envelope(sql, scope.statements.scope, scope.claims, { text: insertOne.text, params });
      return sendInserted(reply);
    });
  }
}
