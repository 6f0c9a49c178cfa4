// Embedding as PostgREST does it, against real PostgreSQL: one-to-one (a unique foreign key is an
// object, not an array), many-to-many through a junction table, filters on the embed itself
// (`rel=is.null` / `rel=not.is.null`), ordering the parent by a to-one embed's column
// (`order=rel(col)`), and spread embeds (`...rel(cols)`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.countries (id int primary key, name text not null);
    create table public.capitals (id int primary key, name text not null, country_id int unique references public.countries (id));
    create table public.users (id int primary key, name text not null, country_id int references public.countries (id));
    create table public.teams (id int primary key, name text not null);
    create table public.members (user_id int references public.users (id), team_id int references public.teams (id), role text, primary key (user_id, team_id));
    insert into public.countries values (1, 'France'), (2, 'Japan'), (3, 'Atlantis');
    insert into public.capitals values (10, 'Paris', 1), (20, 'Tokyo', 2);
    insert into public.users values (1, 'Ann', 2), (2, 'Bob', 1), (3, 'Cy', null);
    insert into public.teams values (1, 'red'), (2, 'blue'), (3, 'empty');
    insert into public.members values (1, 1, 'lead'), (1, 2, 'dev'), (2, 1, 'dev');
  `);
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: `/api/database/records/${path}`, headers: { ...bearer(t.apiKey), ...headers } });

describe('embeds', () => {
  it.each<[string, string, unknown]>([
    [
      'one-to-one from the referenced side is an object (or null)',
      'countries?select=name,capitals(name)&order=id',
      [
        { name: 'France', capitals: { name: 'Paris' } },
        { name: 'Japan', capitals: { name: 'Tokyo' } },
        { name: 'Atlantis', capitals: null },
      ],
    ],
    [
      'one-to-one from the referencing side is an object too',
      'capitals?select=name,countries(name)&id=eq.10',
      [{ name: 'Paris', countries: { name: 'France' } }],
    ],
    [
      'many-to-many through the junction table',
      'users?select=name,teams(name)&order=id&teams.order=id',
      [
        { name: 'Ann', teams: [{ name: 'red' }, { name: 'blue' }] },
        { name: 'Bob', teams: [{ name: 'red' }] },
        { name: 'Cy', teams: [] },
      ],
    ],
    [
      'many-to-many from the other side, filtered, hinted by the junction',
      'teams?select=name,users!members(name)&order=id&users.name=neq.Bob',
      [
        { name: 'red', users: [{ name: 'Ann' }] },
        { name: 'blue', users: [{ name: 'Ann' }] },
        { name: 'empty', users: [] },
      ],
    ],
    [
      'the junction itself still embeds one-to-many',
      'users?select=name,members(role)&id=eq.1&members.order=role',
      [{ name: 'Ann', members: [{ role: 'dev' }, { role: 'lead' }] }],
    ],
    [
      'rel=not.is.null keeps the rows with a match',
      'users?select=name,teams(name)&teams=not.is.null&order=id&teams.order=id',
      [
        { name: 'Ann', teams: [{ name: 'red' }, { name: 'blue' }] },
        { name: 'Bob', teams: [{ name: 'red' }] },
      ],
    ],
    [
      'rel=is.null keeps the rows without one',
      'users?select=name,teams(name)&teams=is.null',
      [{ name: 'Cy', teams: [] }],
    ],
    [
      'rel=is.null with a filter on the embed: no matching child',
      'teams?select=name,users(name)&users.name=eq.Bob&users=is.null&order=id',
      [
        { name: 'blue', users: [] },
        { name: 'empty', users: [] },
      ],
    ],
    [
      'rel.is.null inside or=(…): no country, or named Bob',
      'users?select=name,countries(name)&or=(countries.is.null,name.eq.Bob)&order=id',
      [
        { name: 'Bob', countries: { name: 'France' } },
        { name: 'Cy', countries: null },
      ],
    ],
    [
      'rel.not.is.null inside and(…) under or=(…)',
      'users?select=name,teams(name)&or=(name.eq.Cy,and(teams.not.is.null,name.neq.Bob))&order=id&teams.order=id',
      [
        { name: 'Ann', teams: [{ name: 'red' }, { name: 'blue' }] },
        { name: 'Cy', teams: [] },
      ],
    ],
    [
      'a to-one embed filtered to null',
      'users?select=name,countries(name)&countries=is.null',
      [{ name: 'Cy', countries: null }],
    ],
    [
      'order=rel(col) orders the parent by a to-one embed',
      'users?select=name,countries(name)&order=countries(name).desc.nullslast',
      [
        { name: 'Ann', countries: { name: 'Japan' } },
        { name: 'Bob', countries: { name: 'France' } },
        { name: 'Cy', countries: null },
      ],
    ],
    [
      'order=rel(col) by an alias',
      'users?select=name,land:countries(name)&order=land(name).nullsfirst',
      [
        { name: 'Cy', land: null },
        { name: 'Bob', land: { name: 'France' } },
        { name: 'Ann', land: { name: 'Japan' } },
      ],
    ],
    [
      'a spread embed puts its columns in the parent',
      'users?select=name,...countries(country:name)&order=id',
      [
        { name: 'Ann', country: 'Japan' },
        { name: 'Bob', country: 'France' },
        { name: 'Cy', country: null },
      ],
    ],
    [
      'a nested spread and an embed inside it',
      'users?select=name,...countries(country:name,...capitals(capital:name))&id=lte.2&order=id',
      [
        { name: 'Ann', country: 'Japan', capital: 'Tokyo' },
        { name: 'Bob', country: 'France', capital: 'Paris' },
      ],
    ],
    ['a spread of every column', 'capitals?select=name,...countries(*)&id=eq.20', [{ name: 'Japan', id: 2 }]],
  ])('%s', async (_label, path, expected) => {
    const res = await get(path);
    expect(res.json).toEqual(expected);
    expect(res.statusCode).toBe(200);
  });

  it('rel=not.is.null counts only the rows with a match', async () => {
    const res = await get('users?select=name,teams(name)&teams=not.is.null', { prefer: 'count=exact' });
    expect(res.headers['content-range']).toBe('0-1/2');
  });

  it.each<[string, string, number, string]>([
    ['order by a to-many embed', 'countries?select=name,users(name)&order=users(name)', 400, 'PGRST118'],
    ['order by an embed not in the select', 'users?select=name&order=countries(name)', 400, 'PGRST108'],
    ['a spread of a to-many embed', 'countries?select=name,...users(name)', 400, 'PGRST119'],
    ['an embed filter other than is.null', 'users?select=name,teams(name)&teams=eq.1', 400, '42703'],
  ])('refuses %s (%s %s)', async (_label, path, status, code) => {
    const res = await get(path);
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ code });
  });
});
