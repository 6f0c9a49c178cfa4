// The user-view limit's records routes (architecture.md, Benchmarks): what a careful engineer
// writes by hand for the same HTTP answer. The same token check, the plainest fast SQL for the
// result (`… where id = $1`, a plain INSERT) under the same role and claims, in the pipelined
// envelope, and PostgreSQL's JSON text as the body. Served under USER_VIEW_PREFIX by the limit server.
import type { FastifyInstance } from 'fastify';
import type postgres from 'postgres';
import { ENVELOPES, scopeClaims, sendInserted, sendRows, type UserClaims } from './limit-records.js';
import type { CapturedStatement } from './records.js';
import { RECORDS_PATH, RECORDS_TABLE } from './records.js';

export const USER_VIEW_PREFIX = '/user-view';

/** Role and claims, nothing else: what a hand-written handler sets for row-level security. */
const SCOPE: CapturedStatement = {
  text: "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
  params: ['authenticated', ''],
};

/** Rows as one JSON array (PostgreSQL's json_agg, as Plinth answers) and their count. */
const asJson = (from: string) =>
  `select coalesce(json_agg(t), '[]'::json)::text as body, count(*)::int as n from (${from}) t`;

export const USER_VIEW_SQL = {
  readOne: asJson(`select * from public.${RECORDS_TABLE} where id = $1`),
  list: asJson(`select id, title, done from public.${RECORDS_TABLE} where done = false order by id limit 20`),
  insertOne: `insert into public.${RECORDS_TABLE} (title, done) values ($1, $2)`,
};

/** What the user-view limit does for the records scenarios (printed with the results). */
export const USER_VIEW_DOES =
  'bare Fastify route: the same token verify; role + claims (set_config) and the plainest SQL (select * … where id = $1 / select id, title, done … where done = false order by id limit 20, both wrapped in json_agg; insert … values ($1, $2)) in the pipelined envelope (one round trip, prepared)';

export interface UserViewOptions {
  verify(token: string): UserClaims | null;
}

export function userViewRecordsRoutes(app: FastifyInstance, sql: postgres.Sql, o: UserViewOptions): void {
  const envelope = ENVELOPES.pipelined;
  const path = USER_VIEW_PREFIX + RECORDS_PATH;
  const claimsOf = (authorization: string | undefined) => {
    const claims = o.verify(authorization?.slice('Bearer '.length) ?? '');
    return claims?.role === 'authenticated' && typeof claims.email === 'string' ? scopeClaims(claims) : undefined;
  };

  app.get(path, async (request, reply) => {
    const claims = claimsOf(request.headers.authorization);
    if (!claims) return reply.code(401).send({ error: 'UNAUTHORIZED' });
    const id = (request.query as { id?: string }).id;
    if (id !== undefined && !id.startsWith('eq.')) return reply.code(400).send({ error: 'VALIDATION_ERROR' });
    const statement =
      id === undefined
        ? { text: USER_VIEW_SQL.list, params: [] }
        : { text: USER_VIEW_SQL.readOne, params: [id.slice(3)] };
    const [row] = await envelope(sql, SCOPE, claims, statement);
    return sendRows(reply, row?.body as string, Number(row?.n ?? 0));
  });

  app.post(path, async (request, reply) => {
    const claims = claimsOf(request.headers.authorization);
    if (!claims) return reply.code(401).send({ error: 'UNAUTHORIZED' });
    const { title, done } = request.body as { title: string; done: boolean };
    await envelope(sql, SCOPE, claims, { text: USER_VIEW_SQL.insertOne, params: [title, done] });
    return sendInserted(reply);
  });
}
