// Foreign keys in the reference platform's shape (its shared-schemas foreignKeySchema and its own
// curl suite, backend/tests/local/test-fk-errors.sh): PATCH …/schema addForeignKeys entries
// {referenceTable, referenceColumns: [{sourceColumn, referenceColumn}], onDelete, onUpdate}, beside
// Plinth's {columnName, referenceTable, referenceColumn}; composite keys as one entry, named or not;
// dropForeignKeys by constraint name as the reference does; bad entries 400 naming the field,
// nothing half-done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const key = () => ({ 'x-api-key': t.apiKey });
const createTable = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/database/tables', headers: key(), payload });
const alter = (table: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PATCH', url: `/api/database/tables/${table}/schema`, headers: key(), payload });
const columnsOf = async (table: string) =>
  Object.fromEntries(
    (
      (await t.request({ method: 'GET', url: `/api/database/tables/${table}/schema`, headers: key() })).json
        .columns as { columnName: string }[]
    ).map((c) => [c.columnName, c]),
  );
const insert = (table: string, row: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: `/api/database/records/${table}`,
    headers: { ...key(), prefer: 'return=representation' },
    payload: row,
  });
/** The table's foreign-key constraints as PostgreSQL holds them. */
const constraintsOf = async (table: string) =>
  t.deps.sql<{ name: string; columns: string[]; definition: string }[]>`
    select conname as name, pg_get_constraintdef(oid) as definition,
           array(select attname::text from unnest(conkey) k join pg_attribute a on a.attrelid = conrelid and a.attnum = k) as columns
    from pg_constraint where conrelid = ${`public.${table}`}::regclass and contype = 'f' order by conname`;

const ref = (referenceTable: string, pairs: [string, string][], extra: Record<string, unknown> = {}) => ({
  referenceTable,
  referenceColumns: pairs.map(([sourceColumn, referenceColumn]) => ({ sourceColumn, referenceColumn })),
  onDelete: 'CASCADE',
  onUpdate: 'CASCADE',
  ...extra,
});

beforeAll(async () => {
  t = await startTestApp();
  // The reference suite's two tables.
  for (const payload of [
    {
      tableName: 'fk_users',
      rlsEnabled: false,
      columns: [{ columnName: 'name', type: 'string', isNullable: false, isUnique: false }],
    },
    {
      tableName: 'fk_posts',
      rlsEnabled: false,
      columns: [{ columnName: 'author_id', type: 'uuid', isNullable: true, isUnique: false }],
    },
  ]) {
    const res = await createTable(payload);
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(() => t?.close());

describe("the reference's curl suite (test-fk-errors.sh), as it runs there", () => {
  it.each([
    ['a table that does not exist', { addForeignKeys: [ref('fake_table', [['author_id', 'id']])] }, /fake_table/],
    // PostgreSQL first finds that name is not unique (the reference's suite expects the same 400).
    [
      'a column that cannot be referenced (uuid → a non-unique text column)',
      { addForeignKeys: [ref('fk_users', [['author_id', 'name']])] },
      /no unique constraint/,
    ],
    [
      'a new column referencing a table that does not exist (the column is not added either)',
      {
        addColumns: [{ columnName: 'cat_id', type: 'uuid', isNullable: true, isUnique: false }],
        addForeignKeys: [ref('fake_cats', [['cat_id', 'id']])],
      },
      /fake_cats/,
    ],
  ])('%s → 400 with a fix', async (_label, payload, message) => {
    const res = await alter('fk_posts', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json.message).toMatch(message);
    expect(res.json.nextActions).toEqual(expect.any(String));
    expect(Object.keys(await columnsOf('fk_posts'))).not.toContain('cat_id');
    expect(await constraintsOf('fk_posts')).toEqual([]);
  });

  it('a valid foreign key → 200; it is enforced and cascades', async () => {
    const res = await alter('fk_posts', { addForeignKeys: [ref('fk_users', [['author_id', 'id']])] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      tableName: 'fk_posts',
      operations: ['added a foreign key on author_id to fk_users.id'],
    });
    expect((await columnsOf('fk_posts')).author_id).toMatchObject({
      foreignKey: { referenceTable: 'fk_users', referenceColumn: 'id', onDelete: 'CASCADE', onUpdate: 'CASCADE' },
    });

    const orphan = await insert('fk_posts', { author_id: '00000000-0000-4000-8000-000000000000' });
    expect(orphan.statusCode).toBe(400);
    expect(orphan.json.message).toMatch(/foreign key/);
    const user = await insert('fk_users', { name: 'ada' });
    const post = await insert('fk_posts', { author_id: user.json[0].id });
    expect(post.statusCode, post.body).toBe(201);
    const removed = await t.request({
      method: 'DELETE',
      url: `/api/database/records/fk_users?id=eq.${user.json[0].id}`,
      headers: key(),
    });
    expect(removed.statusCode).toBeLessThan(300);
    expect((await t.request({ method: 'GET', url: '/api/database/records/fk_posts', headers: key() })).json).toEqual(
      [],
    );
  });
});

describe('composite keys and constraint names', () => {
  beforeAll(async () => {
    const parent = await createTable({
      tableName: 'fk_regions',
      rlsEnabled: false,
      columns: [
        { columnName: 'country', type: 'string', isPrimaryKey: true, isNullable: false },
        { columnName: 'code', type: 'string', isPrimaryKey: true, isNullable: false },
      ],
    });
    expect(parent.statusCode, parent.body).toBe(201);
    const child = await createTable({
      tableName: 'fk_shops',
      rlsEnabled: false,
      columns: [
        { columnName: 'region_country', type: 'string' },
        { columnName: 'region_code', type: 'string' },
      ],
    });
    expect(child.statusCode, child.body).toBe(201);
  });

  it('adds a composite key as one named constraint, in pair order, and drops it by that name', async () => {
    const res = await alter('fk_shops', {
      addForeignKeys: [
        ref(
          'fk_regions',
          [
            ['region_country', 'country'],
            ['region_code', 'code'],
          ],
          { constraintName: 'shops_region_fk', onDelete: 'RESTRICT', onUpdate: 'NO ACTION' },
        ),
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.operations).toEqual([
      'added a foreign key on (region_country, region_code) to fk_regions (country, code)',
    ]);
    expect(await constraintsOf('fk_shops')).toEqual([
      {
        name: 'shops_region_fk',
        columns: ['region_country', 'region_code'],
        definition: 'FOREIGN KEY (region_country, region_code) REFERENCES fk_regions(country, code) ON DELETE RESTRICT',
      },
    ]);
    await insert('fk_regions', { country: 'FR', code: 'IDF' });
    expect((await insert('fk_shops', { region_country: 'FR', region_code: 'IDF' })).statusCode).toBe(201);
    expect((await insert('fk_shops', { region_country: 'FR', region_code: 'XX' })).statusCode).toBe(400);

    const dropped = await alter('fk_shops', { dropForeignKeys: ['shops_region_fk'] });
    expect(dropped.statusCode, dropped.body).toBe(200);
    expect(dropped.json.operations).toEqual(['dropped the foreign key shops_region_fk']);
    expect(await constraintsOf('fk_shops')).toEqual([]);
  });

  it("an unnamed one gets PostgreSQL's name, which dropForeignKeys takes; a column name still works", async () => {
    const users = await createTable({ tableName: 'fk_owners', columns: [] });
    expect(users.statusCode).toBe(201);
    await alter('fk_shops', { addColumns: [{ columnName: 'owner_id', type: 'uuid' }] });
    const added = await alter('fk_shops', {
      addForeignKeys: [
        { referenceTable: 'fk_owners', referenceColumns: [{ sourceColumn: 'owner_id', referenceColumn: 'id' }] },
      ],
    });
    expect(added.statusCode, added.body).toBe(200);
    const [constraint] = await constraintsOf('fk_shops');
    expect(constraint).toMatchObject({ name: 'fk_shops_owner_id_fkey', columns: ['owner_id'] });
    // onDelete and onUpdate default to NO ACTION, as in Plinth's own shape.
    expect((await columnsOf('fk_shops')).owner_id).toMatchObject({
      foreignKey: { referenceTable: 'fk_owners', onDelete: 'NO ACTION', onUpdate: 'NO ACTION' },
    });
    expect((await alter('fk_shops', { dropForeignKeys: ['fk_shops_owner_id_fkey'] })).statusCode).toBe(200);
    expect((await alter('fk_shops', { addForeignKeys: [ref('fk_owners', [['owner_id', 'id']])] })).statusCode).toBe(
      200,
    );
    expect((await alter('fk_shops', { dropForeignKeys: ['owner_id'] })).statusCode).toBe(200);
    expect(await constraintsOf('fk_shops')).toEqual([]);
  });

  it('POST /api/database/tables takes the same shape in foreignKeys', async () => {
    const res = await createTable({
      tableName: 'fk_visits',
      rlsEnabled: false,
      columns: [
        { columnName: 'shop_country', type: 'string' },
        { columnName: 'shop_code', type: 'string' },
      ],
      foreignKeys: [
        ref('fk_regions', [
          ['shop_country', 'country'],
          ['shop_code', 'code'],
        ]),
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await constraintsOf('fk_visits'))[0]).toMatchObject({ columns: ['shop_country', 'shop_code'] });
  });
});

describe('bad entries: 400 naming the field, nothing changed', () => {
  it.each([
    ['no pairs', { addForeignKeys: [ref('fk_users', [])] }, /referenceColumns: give at least one/],
    [
      'an unknown action',
      { addForeignKeys: [ref('fk_users', [['author_id', 'id']], { onDelete: 'CASCAD' })] },
      /addForeignKeys\.0: onDelete: /,
    ],
    [
      'SQL in a column name',
      { addForeignKeys: [ref('fk_users', [['author_id") references x; --', 'id']])] },
      /referenceColumns\.0\.sourceColumn: must start with a letter/,
    ],
    [
      'SQL in the table name',
      { addForeignKeys: [ref('fk_users"; drop table fk_posts; --', [['author_id', 'id']])] },
      /referenceTable: must be a table name/,
    ],
    [
      'both shapes mixed in one entry',
      { addForeignKeys: [{ ...ref('fk_users', [['author_id', 'id']]), columnName: 'author_id' }] },
      /columnName/,
    ],
    [
      "Plinth's shape with a field missing",
      { addForeignKeys: [{ columnName: 'author_id', referenceTable: 'fk_users' }] },
      /addForeignKeys\.0: referenceColumn: /,
    ],
    [
      'a name that is neither a column nor a constraint',
      { dropForeignKeys: ['no_such_fk'] },
      /"no_such_fk" is neither a column nor a foreign-key constraint of table "fk_posts"/,
    ],
  ])('%s', async (_label, payload, message) => {
    const before = await constraintsOf('fk_posts');
    const res = await alter('fk_posts', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect(res.json.message).toMatch(message);
    expect(await constraintsOf('fk_posts')).toEqual(before);
    expect((await t.request({ method: 'GET', url: '/api/database/records/fk_posts', headers: key() })).statusCode).toBe(
      200,
    );
  });
});
