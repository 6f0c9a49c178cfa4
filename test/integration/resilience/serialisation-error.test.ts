// A parameter postgres.js cannot serialise (a RangeError in
// its Bind, once the statement is prepared) poisons the reserved connection, which runScoped /
// withRequestScope then released to the pool, so every later query on it hung (postgres.js patch).
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runScoped } from '../../../src/core/db.js';
import { createDatabase } from '../../harness/test-app.js';

let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres(await createDatabase(), { max: 1, onnotice: () => {} });
});
afterAll(() => sql.end({ timeout: 1 }));

it('a driver-side serialisation error leaves the pooled connection usable', async () => {
  let deep: unknown = 1;
  for (let i = 0; i < 5000; i++) deep = [deep];
  const scope = { role: 'anon' as const, claims: { role: 'anon' } };
  const text = 'select count(*) from json_populate_recordset(null::pg_class, $1::json)';
  // 1st call: rejected (RangeError) while the statement is being prepared; the 2nd (prepared) one
  // never settled before the patch, and neither did anything after it on that connection.
  await expect(runScoped(sql, scope, text, [[{ relname: deep }]])).rejects.toThrow(RangeError);
  await expect(runScoped(sql, scope, text, [[{ relname: deep }]])).rejects.toThrow(RangeError);
  expect(await sql`select 42 as x`).toEqual([{ x: 42 }]);
});
