// The Markdown overview stays a well-formed table whatever a table is named: a name cannot end a
// cell early (a backslash before |), start a new row (CR or LF) or inject a heading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(
    `create table public."evil\\| 1 |" (id int); create table public."cr\r# Injected" (id int); create table public."lf\n## Injected2" (id int)`,
  );
});
afterAll(() => t.close());

describe('GET /api/metadata?format=markdown', () => {
  it('each table is one row of exactly two cells', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/metadata?format=markdown',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body.split(/\r\n|\r|\n/);
    expect(lines.filter((l) => /^#+ Injected/.test(l))).toEqual([]);
    const start = lines.indexOf('| table | records |');
    const rows = lines.slice(start + 2, lines.indexOf('', start));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      // Cells split on | not preceded by an odd number of backslashes.
      const cells = row
        .replace(/\\\\/g, '')
        .split(/(?<!\\)\|/)
        .slice(1, -1);
      expect(cells, row).toHaveLength(2);
    }
  });
});
