// The SQL editor's saved snippets as a client sees them: saved with their author, listed by name,
// renamed or rewritten, deleted, unique names, bad input refused with a fix, and every write audited.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let adminToken = '';
const key = () => ({ 'x-api-key': t.apiKey });
const snippets = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path = '',
  payload?: object,
  headers: Record<string, string> = key(),
) =>
  t.request({ method, url: `/api/database/snippets${path}`, headers, ...(payload === undefined ? {} : { payload }) });

beforeAll(async () => {
  t = await startTestApp();
  adminToken = await t.adminToken();
});
afterAll(() => t.close());

describe('/api/database/snippets', () => {
  it('starts empty, saves snippets with their author and lists them by name', async () => {
    expect((await snippets('GET')).json).toEqual({ snippets: [] });

    const zeta = await snippets('POST', '', { name: 'zeta counts', sql: 'select count(*) from books' });
    expect(zeta.statusCode, zeta.body).toBe(201);
    expect(zeta.json).toMatchObject({ name: 'zeta counts', sql: 'select count(*) from books', createdBy: 'api-key' });
    expect(zeta.json.createdAt).toBe(zeta.json.updatedAt);

    const alpha = await snippets('POST', '', { name: '  Alpha  ', sql: 'select 1' }, bearer(adminToken));
    expect(alpha.statusCode, alpha.body).toBe(201);
    expect(alpha.json.name).toBe('Alpha');
    expect(alpha.json.createdBy).not.toBe('api-key');

    const list = await snippets('GET');
    expect(list.statusCode).toBe(200);
    expect(list.json.snippets.map((s: { name: string }) => s.name)).toEqual(['Alpha', 'zeta counts']);
  });

  it('renames a snippet or changes its SQL, keeping the rest', async () => {
    const created = (await snippets('POST', '', { name: 'to change', sql: 'select 2' })).json;
    t.clock.advance(60_000);
    const renamed = await snippets('PATCH', `/${created.id}`, { name: 'changed' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json).toMatchObject({ id: created.id, name: 'changed', sql: 'select 2' });
    expect(Date.parse(renamed.json.updatedAt) - Date.parse(created.updatedAt)).toBe(60_000);

    const rewritten = await snippets('PATCH', `/${created.id}`, { sql: 'select 3' });
    expect(rewritten.json).toMatchObject({ name: 'changed', sql: 'select 3', createdAt: created.createdAt });
  });

  it('deletes a snippet; a second delete finds none', async () => {
    const created = (await snippets('POST', '', { name: 'to delete', sql: 'select 4' })).json;
    const deleted = await snippets('DELETE', `/${created.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json).toEqual({ message: 'Snippet deleted successfully.' });
    const names = (await snippets('GET')).json.snippets.map((s: { name: string }) => s.name);
    expect(names).not.toContain('to delete');
    const again = await snippets('DELETE', `/${created.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: 'DATABASE_NOT_FOUND', message: 'Snippet not found.' });
    expect(again.json.nextActions).toContain('GET /api/database/snippets');
  });

  it.each([
    ['POST', '', { name: 'x' }, 400, 'VALIDATION_ERROR'],
    ['POST', '', { name: '   ', sql: 'select 1' }, 400, 'VALIDATION_ERROR'],
    ['POST', '', { name: 'x', sql: '' }, 400, 'VALIDATION_ERROR'],
    ['POST', '', { name: 'x', sql: 'select 1', extra: true }, 400, 'VALIDATION_ERROR'],
    ['PATCH', `/${randomUUID()}`, {}, 400, 'VALIDATION_ERROR'],
    ['PATCH', '/not-a-uuid', { sql: 'select 1' }, 400, 'VALIDATION_ERROR'],
    ['PATCH', `/${randomUUID()}`, { sql: 'select 1' }, 404, 'DATABASE_NOT_FOUND'],
    ['DELETE', '/not-a-uuid', undefined, 400, 'VALIDATION_ERROR'],
  ] as const)('%s %s with %j: %i %s', async (method, path, payload, status, error) => {
    const res = await snippets(method, path, payload);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json).toMatchObject({ error, statusCode: status });
    // Schema failures say which field broke which rule; a missing snippet says how to find one.
    expect(status === 400 ? res.json.details : res.json.nextActions).toBeTruthy();
  });

  it('refuses a name another snippet has, on save and on rename (409 with the fix)', async () => {
    await snippets('POST', '', { name: 'taken', sql: 'select 5' });
    const duplicate = await snippets('POST', '', { name: 'taken', sql: 'select 6' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json).toMatchObject({
      error: 'DATABASE_DUPLICATE',
      message: 'A snippet named "taken" already exists.',
    });
    expect(duplicate.json.nextActions).toContain('PATCH /api/database/snippets/{id}');

    const other = (await snippets('POST', '', { name: 'other', sql: 'select 7' })).json;
    const rename = await snippets('PATCH', `/${other.id}`, { name: 'taken' });
    expect(rename.statusCode).toBe(409);
    const kept = (await snippets('GET')).json.snippets.find((s: { id: string }) => s.id === other.id);
    expect(kept).toMatchObject({ name: 'other', sql: 'select 7' });
  });

  it('is for admins only: a user token is refused', async () => {
    const user = await t.signUp();
    const res = await snippets('GET', '', undefined, bearer(user.accessToken));
    expect(res.statusCode).toBe(403);
  });

  it('audits each successful write', async () => {
    const created = (await snippets('POST', '', { name: 'audited', sql: 'select 8' })).json;
    await snippets('PATCH', `/${created.id}`, { sql: 'select 9' });
    await snippets('DELETE', `/${created.id}`);
    await t.app.logs!.flush();
    const audits = await t.request({ method: 'GET', url: '/api/logs/audits?limit=1000', headers: key() });
    const actions = audits.json.map((a: { action: string }) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'POST /api/database/snippets',
        'PATCH /api/database/snippets/:id',
        'DELETE /api/database/snippets/:id',
      ]),
    );
  });
});
