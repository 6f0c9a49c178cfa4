// Table administration as a client sees it: create, read, alter and drop tables through the API,
// with the records API seeing every change at once, every change all-or-nothing, clear 4xx errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const key = () => ({ 'x-api-key': t.apiKey });
const createTable = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/database/tables', headers: key(), payload });
const schemaOf = (table: string) =>
  t.request({ method: 'GET', url: `/api/database/tables/${table}/schema`, headers: key() });
const alter = (table: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PATCH', url: `/api/database/tables/${table}/schema`, headers: key(), payload });
const records = (table: string, query = '') =>
  t.request({ method: 'GET', url: `/api/database/records/${table}${query}`, headers: key() });
const insert = (table: string, row: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: `/api/database/records/${table}`,
    headers: { ...key(), prefer: 'return=representation' },
    payload: row,
  });
const columnNames = async (table: string) =>
  ((await schemaOf(table)).json.columns as { columnName: string }[]).map((c) => c.columnName);

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('POST /api/database/tables', () => {
  it('creates a table with auto fields, friendly and raw types, defaults and a foreign key; the records API serves it at once', async () => {
    expect(
      (
        await createTable({
          tableName: 'authors',
          columns: [{ columnName: 'name', type: 'string', isNullable: false, isUnique: true }],
        })
      ).statusCode,
    ).toBe(201);
    const res = await createTable({
      tableName: 'posts',
      columns: [
        { columnName: 'title', type: 'string', isNullable: false, isUnique: false },
        { columnName: 'views', type: 'integer', defaultValue: '0', isNullable: false, isUnique: false },
        { columnName: 'score', type: 'float', isNullable: true, isUnique: false },
        { columnName: 'published', type: 'boolean', defaultValue: 'false', isNullable: false, isUnique: false },
        { columnName: 'published_at', type: 'datetime', isNullable: true, isUnique: false },
        { columnName: 'day', type: 'date', defaultValue: 'current_date', isNullable: true, isUnique: false },
        { columnName: 'meta', type: 'json', defaultValue: '{"a":1}', isNullable: true, isUnique: false },
        { columnName: 'slug', type: 'varchar(80)', defaultValue: "it's", isNullable: true, isUnique: true },
        { columnName: 'price', type: 'numeric(10,2)', isNullable: true, isUnique: false },
        { columnName: 'tags', type: 'text[]', isNullable: true, isUnique: false },
        { columnName: 'author_id', type: 'uuid', isNullable: true, isUnique: false },
      ],
      foreignKeys: [{ columnName: 'author_id', referenceTable: 'authors', referenceColumn: 'id', onDelete: 'CASCADE' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toMatchObject({
      schemaName: 'public',
      tableName: 'posts',
      message: 'Table created successfully',
      autoFields: ['id', 'created_at', 'updated_at'],
      nextActions: expect.any(String),
    });
    const byName = Object.fromEntries((res.json.columns as { columnName: string }[]).map((c) => [c.columnName, c]));
    expect(Object.keys(byName)).toEqual([
      'id',
      'title',
      'views',
      'score',
      'published',
      'published_at',
      'day',
      'meta',
      'slug',
      'price',
      'tags',
      'author_id',
      'created_at',
      'updated_at',
    ]);
    expect(byName.id).toMatchObject({
      type: 'uuid',
      isPrimaryKey: true,
      isNullable: false,
      defaultValue: 'gen_random_uuid()',
    });
    expect(byName.title).toMatchObject({ type: 'text', isNullable: false, isUnique: false });
    expect(byName.score).toMatchObject({ type: 'double precision' });
    expect(byName.published_at).toMatchObject({ type: 'timestamp with time zone' });
    expect(byName.meta).toMatchObject({ type: 'jsonb' });
    expect(byName.slug).toMatchObject({ type: 'character varying(80)', isUnique: true });
    expect(byName.price).toMatchObject({ type: 'numeric(10,2)' });
    expect(byName.author_id).toMatchObject({
      foreignKey: { referenceTable: 'authors', referenceColumn: 'id', onDelete: 'CASCADE', onUpdate: 'NO ACTION' },
    });

    const author = await insert('authors', { name: 'Ann' });
    expect(author.statusCode, author.body).toBe(201);
    const post = await insert('posts', { title: 'Hello', author_id: author.json[0].id });
    expect(post.statusCode, post.body).toBe(201);
    expect(post.json[0]).toMatchObject({
      title: 'Hello',
      views: 0,
      published: false,
      meta: { a: 1 },
      slug: "it's",
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(post.json[0].created_at).toEqual(expect.any(String));
  });

  it('turns row-level security on by default (anon sees nothing) and off when asked', async () => {
    for (const [tableName, rlsEnabled] of [
      ['locked', undefined],
      ['open_table', false],
    ] as const) {
      const res = await createTable({
        tableName,
        columns: [{ columnName: 'note', type: 'string' }],
        ...(rlsEnabled === undefined ? {} : { rlsEnabled }),
      });
      expect(res.statusCode, res.body).toBe(201);
      expect((await insert(tableName, { note: 'x' })).statusCode).toBe(201);
    }
    expect((await schemaOf('locked')).json.rlsEnabled).toBe(true);
    expect((await schemaOf('open_table')).json.rlsEnabled).toBe(false);
    const asAnon = (table: string) =>
      t.request({ method: 'GET', url: `/api/database/records/${table}?select=note`, headers: bearer(t.anonKey) });
    expect((await asAnon('locked')).json).toEqual([]);
    expect((await asAnon('open_table')).json).toEqual([{ note: 'x' }]);
  });

  it('a foreign key may reference auth.users', async () => {
    const res = await createTable({
      tableName: 'profiles',
      columns: [{ columnName: 'user_id', type: 'uuid', isNullable: false }],
      foreignKeys: [
        { columnName: 'user_id', referenceTable: 'auth.users', referenceColumn: 'id', onDelete: 'CASCADE' },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const userId = (await t.signUp()).user.id;
    expect((await insert('profiles', { user_id: userId })).statusCode).toBe(201);
    const orphan = await insert('profiles', { user_id: '00000000-0000-0000-0000-000000000000' });
    expect(orphan.statusCode).toBe(400); // a referenced row missing is a 400 (23503 split, issue 33)
    const cols = Object.fromEntries((res.json.columns as { columnName: string }[]).map((c) => [c.columnName, c]));
    expect(cols.user_id).toMatchObject({
      foreignKey: { referenceTable: 'auth.users', referenceColumn: 'id', onDelete: 'CASCADE' },
    });
  });

  it('a user primary key keeps id unique and not null', async () => {
    const res = await createTable({
      tableName: 'codes',
      columns: [{ columnName: 'code', type: 'string', isPrimaryKey: true, isNullable: false }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const cols = Object.fromEntries((res.json.columns as { columnName: string }[]).map((c) => [c.columnName, c]));
    expect(cols.code).toMatchObject({ isPrimaryKey: true });
    expect(cols.id).toMatchObject({ isPrimaryKey: false, isUnique: true, isNullable: false });
  });

  it.each([
    ['an existing table', { tableName: 'posts', columns: [] }, 409, /already exists/],
    [
      'a column named twice',
      {
        tableName: 'twice',
        columns: [
          { columnName: 'a', type: 'string' },
          { columnName: 'a', type: 'integer' },
        ],
      },
      409,
      /named twice/,
    ],
    [
      'an auto field',
      { tableName: 'auto', columns: [{ columnName: 'id', type: 'integer' }] },
      400,
      /created automatically/,
    ],
    [
      'a type that does not exist',
      { tableName: 'badtype', columns: [{ columnName: 'a', type: 'nosuchtype' }] },
      400,
      /type "nosuchtype" does not exist/,
    ],
    [
      'SQL smuggled in a type',
      { tableName: 'inject', columns: [{ columnName: 'a', type: 'int); drop table posts; --' }] },
      400,
      /is not a column type/,
    ],
    [
      'a constraint smuggled in a type',
      { tableName: 'inject', columns: [{ columnName: 'a', type: 'int primary key' }] },
      400,
      /is not a column type/,
    ],
    [
      'a default that does not fit the type',
      { tableName: 'baddefault', columns: [{ columnName: 'n', type: 'integer', defaultValue: 'many' }] },
      400,
      /invalid input syntax for type integer/,
    ],
    [
      'a foreign key to a missing table',
      {
        tableName: 'orphans',
        columns: [{ columnName: 'p', type: 'uuid' }],
        foreignKeys: [{ columnName: 'p', referenceTable: 'nowhere', referenceColumn: 'id' }],
      },
      400,
      /"public.nowhere" does not exist/,
    ],
    ['a table name with a quote', { tableName: 'bad"name', columns: [] }, 400, /tableName/],
    ['a table name over 63 characters', { tableName: 'a'.repeat(64), columns: [] }, 400, /63/],
    [
      'a column name with a space',
      { tableName: 'spaced', columns: [{ columnName: 'a b', type: 'string' }] },
      400,
      /columnName/,
    ],
    ['an unknown field', { tableName: 'extra', columns: [], owner: 'me' }, 400, /owner/],
  ])('%s', async (_label, payload, status, message) => {
    const res = await createTable(payload);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json).toMatchObject({ statusCode: status, message: expect.stringMatching(message) });
    const tables = (await t.request({ method: 'GET', url: '/api/database/tables', headers: key() })).json as string[];
    expect(tables.includes(String(payload.tableName))).toBe(payload.tableName === 'posts');
    expect((await records('posts')).statusCode).toBe(200);
  });
});

describe('GET /api/database/tables/:tableName/schema', () => {
  it('answers 404 for a table that does not exist, 400 for a bad name', async () => {
    expect((await schemaOf('nowhere')).json).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
    expect((await schemaOf('bad-name')).statusCode).toBe(400);
  });
});

describe('PATCH /api/database/tables/:tableName/schema', () => {
  beforeAll(async () => {
    await createTable({
      tableName: 'items',
      columns: [
        { columnName: 'label', type: 'string' },
        { columnName: 'old', type: 'integer' },
        { columnName: 'qty', type: 'string', defaultValue: '1' },
        { columnName: 'author_id', type: 'uuid' },
      ],
    });
    await insert('items', { label: 'first', qty: '5' });
  });

  it('adds, drops and updates columns and foreign keys; the records API sees the result at once', async () => {
    const res = await alter('items', {
      addColumns: [{ columnName: 'colour', type: 'string', defaultValue: 'red', isNullable: false }],
      dropColumns: ['old'],
      updateColumns: [
        { columnName: 'qty', type: 'integer', defaultValue: '2', isNullable: false },
        { columnName: 'label', newColumnName: 'title' },
      ],
      addForeignKeys: [
        { columnName: 'author_id', referenceTable: 'authors', referenceColumn: 'id', onDelete: 'SET NULL' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      message: 'Table schema updated successfully',
      tableName: 'items',
      operations: expect.arrayContaining(['dropped column old', 'added column colour']),
    });
    const read = await records('items', '?select=title,qty,colour');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json).toEqual([{ title: 'first', qty: 5, colour: 'red' }]);
    const cols = Object.fromEntries(
      ((await schemaOf('items')).json.columns as { columnName: string }[]).map((c) => [c.columnName, c]),
    );
    expect(cols.qty).toMatchObject({ type: 'integer', isNullable: false, defaultValue: '2' });
    expect(cols.author_id).toMatchObject({ foreignKey: { referenceTable: 'authors', onDelete: 'SET NULL' } });
    expect(cols.old).toBeUndefined();

    const dropped = await alter('items', {
      dropForeignKeys: ['author_id'],
      updateColumns: [{ columnName: 'qty', defaultValue: null }],
    });
    expect(dropped.statusCode, dropped.body).toBe(200);
    const after = Object.fromEntries(
      ((await schemaOf('items')).json.columns as { columnName: string }[]).map((c) => [c.columnName, c]),
    );
    expect(after.author_id).toMatchObject({ foreignKey: null });
    expect(after.qty).toMatchObject({ defaultValue: null });
  });

  it('renames the table: the records API serves the new name and not the old one', async () => {
    await createTable({ tableName: 'before_name', columns: [{ columnName: 'n', type: 'integer' }] });
    await insert('before_name', { n: 1 });
    const res = await alter('before_name', { renameTable: { newTableName: 'after_name' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.tableName).toBe('after_name');
    expect((await records('after_name', '?select=n')).json).toEqual([{ n: 1 }]);
    expect((await records('before_name')).statusCode).toBe(404);
  });

  it('is all or nothing: a failing change leaves the earlier ones undone', async () => {
    const before = await columnNames('items');
    const res = await alter('items', {
      addColumns: [{ columnName: 'never', type: 'string' }],
      addForeignKeys: [{ columnName: 'never', referenceTable: 'nowhere', referenceColumn: 'id' }],
    });
    expect(res.statusCode).toBe(400);
    expect(await columnNames('items')).toEqual(before);
    expect((await records('items', '?select=never')).statusCode).toBe(400);
  });

  it.each([
    ['an unknown table', 'nowhere', { dropColumns: ['x'] }, 404, /Table "nowhere" does not exist/],
    ['dropping an unknown column', 'items', { dropColumns: ['ghost'] }, 400, /Column "ghost" does not exist/],
    [
      'updating an unknown column',
      'items',
      { updateColumns: [{ columnName: 'ghost', isNullable: true }] },
      400,
      /Column "ghost" does not exist/,
    ],
    [
      'adding an existing column',
      'items',
      { addColumns: [{ columnName: 'title', type: 'string' }] },
      409,
      /already exists/,
    ],
    [
      'a bad type',
      'items',
      { updateColumns: [{ columnName: 'title', type: 'text; drop table items' }] },
      400,
      /is not a column type/,
    ],
    [
      'a type the data does not fit',
      'items',
      { updateColumns: [{ columnName: 'title', type: 'integer' }] },
      400,
      /invalid input syntax for type integer/,
    ],
    ['renaming onto an existing table', 'items', { renameTable: { newTableName: 'posts' } }, 409, /already exists/],
    ['a foreign key on a column without one', 'items', { dropForeignKeys: ['title'] }, 400, /has no foreign key/],
    ['no change at all', 'items', {}, 400, /at least one change/],
  ])('%s', async (_label, table, payload, status, message) => {
    const res = await alter(table, payload);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json.message).toMatch(message);
    expect((await records('items')).statusCode).toBe(200);
  });
});

describe('DELETE /api/database/tables/:tableName', () => {
  it('drops a table; the records API no longer serves it; unknown tables → 404', async () => {
    await createTable({ tableName: 'doomed', columns: [] });
    expect((await records('doomed')).statusCode).toBe(200);
    const res = await t.request({ method: 'DELETE', url: '/api/database/tables/doomed', headers: key() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({ message: 'Table deleted successfully', tableName: 'doomed' });
    expect((await records('doomed')).statusCode).toBe(404);
    const again = await t.request({ method: 'DELETE', url: '/api/database/tables/doomed', headers: key() });
    expect(again.json).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
  });

  it('refuses while another table references it → 409, nothing dropped', async () => {
    const res = await t.request({ method: 'DELETE', url: '/api/database/tables/authors', headers: key() });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json.message).toMatch(/depend/);
    expect((await records('authors')).statusCode).toBe(200);
  });
});
