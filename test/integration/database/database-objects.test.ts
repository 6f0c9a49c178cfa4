// What the admin reads of the catalog: schemas, functions, indexes, policies and triggers of a
// schema; the project overview (JSON and Markdown); one table's full description.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const get = (url: string) => t.request({ method: 'GET', url, headers: { 'x-api-key': t.apiKey } });

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.owners (id uuid primary key default gen_random_uuid(), name text);
    create table public.pets (id int primary key, owner_id uuid references public.owners (id) on delete cascade, name text);
    create index pets_name_idx on public.pets (name);
    create policy pets_read on public.pets for select to authenticated using (owner_id = auth.uid());
    create function public.shout(t text) returns text language sql immutable as $$ select upper(t) $$;
    create function public.touch() returns trigger language plpgsql as $$ begin return new; end $$;
    create trigger pets_touch before update on public.pets for each row execute function public.touch();
    insert into public.pets values (1, null, 'Rex'), (2, null, 'Tom');`);
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: { 'x-api-key': t.apiKey },
    payload: { bucketName: 'avatars', isPublic: true },
  });
});
afterAll(() => t.close());

describe('GET /api/database/schemas|functions|indexes|policies|triggers', () => {
  it('lists schemas, the platform ones protected', async () => {
    const res = await get('/api/database/schemas');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.schemas).toEqual(
      expect.arrayContaining([
        { name: 'public', isProtected: false },
        { name: 'auth', isProtected: true },
        { name: 'storage', isProtected: true },
      ]),
    );
    expect(res.json.schemas.map((s: { name: string }) => s.name)).not.toContain('pg_catalog');
  });

  it('lists the functions, indexes, policies and triggers of public by default', async () => {
    const functions = (await get('/api/database/functions')).json.functions;
    expect(functions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'shout',
          arguments: 't text',
          returnType: 'text',
          language: 'sql',
          kind: 'function',
          definition: expect.stringContaining('upper(t)'),
        }),
      ]),
    );
    const indexes = (await get('/api/database/indexes')).json.indexes;
    expect(indexes).toEqual(
      expect.arrayContaining([
        {
          tableName: 'pets',
          indexName: 'pets_pkey',
          indexDef: expect.stringContaining('UNIQUE INDEX pets_pkey'),
          isUnique: true,
          isPrimary: true,
        },
        {
          tableName: 'pets',
          indexName: 'pets_name_idx',
          indexDef: expect.stringContaining('(name)'),
          isUnique: false,
          isPrimary: false,
        },
      ]),
    );
    const policies = (await get('/api/database/policies')).json.policies;
    expect(policies).toEqual(
      expect.arrayContaining([
        {
          tableName: 'pets',
          policyName: 'pets_read',
          command: 'SELECT',
          permissive: 'PERMISSIVE',
          roles: ['authenticated'],
          using: '(owner_id = auth.uid())',
          withCheck: null,
        },
      ]),
    );
    const triggers = (await get('/api/database/triggers')).json.triggers;
    expect(triggers).toEqual([
      {
        tableName: 'pets',
        triggerName: 'pets_touch',
        functionName: 'public.touch',
        enabled: true,
        definition: expect.stringContaining('BEFORE UPDATE ON public.pets'),
      },
    ]);
  });

  it('?schema= picks another schema; a bad or unknown schema', async () => {
    const storage = (await get('/api/database/indexes?schema=storage')).json.indexes;
    expect(storage.map((i: { tableName: string }) => i.tableName)).toContain('objects');
    expect((await get('/api/database/triggers?schema=nowhere')).json).toEqual({ triggers: [] });
    const bad = await get('/api/database/policies?schema=bad;name');
    expect(bad.statusCode).toBe(400);
    expect(bad.json).toMatchObject({ error: 'VALIDATION_ERROR' });
  });
});

describe('GET /api/metadata', () => {
  it('answers the sections auth, database, storage and functions', async () => {
    const res = await get('/api/metadata');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.auth).toMatchObject({ config: { passwordMinLength: 6, disableSignup: false }, oauthProviders: [] });
    expect(res.json.database.tables).toEqual(
      expect.arrayContaining([
        { name: 'pets', recordCount: 2 },
        { name: 'owners', recordCount: 0 },
      ]),
    );
    expect(res.json.database).toMatchObject({
      totalTables: res.json.database.tables.length,
      totalRecords: 2,
      databaseSize: expect.any(String),
    });
    expect(res.json.storage.buckets).toEqual([{ name: 'avatars', public: true, objectCount: 0 }]);
    expect(res.json.functions).toEqual({ functions: [] });
  });

  it('?format=markdown answers a Markdown document', async () => {
    const res = await get('/api/metadata?format=markdown');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.body).toMatch(/^# Project metadata/);
    expect(res.body).toContain('| pets | 2 |');
    expect(res.body).toContain('| avatars | true | 0 |');
    expect((await get('/api/metadata?format=xml')).statusCode).toBe(400);
  });
});

describe('GET /api/metadata/:tableName', () => {
  it('describes one table: columns, indexes, foreign keys, RLS, policies, triggers', async () => {
    const res = await get('/api/metadata/pets');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({ tableName: 'pets', rlsEnabled: true });
    expect(res.json.columns.map((c: { columnName: string }) => c.columnName)).toEqual(['id', 'owner_id', 'name']);
    expect(res.json.foreignKeys).toEqual([
      {
        columnName: 'owner_id',
        referenceTable: 'owners',
        referenceColumn: 'id',
        onDelete: 'CASCADE',
        onUpdate: 'NO ACTION',
      },
    ]);
    expect(res.json.indexes.map((i: { indexName: string }) => i.indexName).sort()).toEqual([
      'pets_name_idx',
      'pets_pkey',
    ]);
    expect(res.json.policies.map((p: { policyName: string }) => p.policyName).sort()).toEqual([
      'pets_read',
      'project_admin_all',
    ]);
    expect(res.json.triggers.map((x: { triggerName: string }) => x.triggerName)).toEqual(['pets_touch']);
  });

  it('answers 404 for an unknown table and 400 for a bad name', async () => {
    expect((await get('/api/metadata/nowhere')).json).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
    expect((await get('/api/metadata/bad-name')).statusCode).toBe(400);
  });
});
