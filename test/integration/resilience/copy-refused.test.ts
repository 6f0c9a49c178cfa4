// A COPY ... FROM STDIN that PostgreSQL refuses (a constraint, a dropped table) must fail its
// writer: before the driver patch the writable's end waited forever for a CommandComplete that
// never came, so the logs writer stalled for good and a restore hung.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase } from '../../harness/test-app.js';

let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres(await createDatabase(), { max: 1, onnotice: () => {} });
  await sql`create table copied (n int check (n > 0))`;
});
afterAll(() => sql.end({ timeout: 1 }));

const copyRows = async (rows: string[]) =>
  pipeline(Readable.from(rows), await sql`copy copied (n) from stdin`.writable());

it('a row refused after the last byte rejects the copy, and the connection serves the next query', async () => {
  await expect(copyRows(['1\n', '-1\n'])).rejects.toThrow(/copied_n_check/);
  expect(await sql`select count(*)::int as n from copied`).toEqual([{ n: 0 }]);
});

it('a row refused early in a long copy rejects it too', async () => {
  const rows = ['-1\n', ...Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`)];
  await expect(copyRows(rows)).rejects.toThrow(/copied_n_check/);
  expect(await sql`select count(*)::int as n from copied`).toEqual([{ n: 0 }]);
});

it('a copy that is accepted still completes', async () => {
  await copyRows(['1\n', '2\n']);
  expect(await sql`select count(*)::int as n from copied`).toEqual([{ n: 2 }]);
});
