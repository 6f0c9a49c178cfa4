// GET /api/database/types?lang=typescript as a client uses it: generated for a schema with every
// column kind, foreign keys (one-to-many, one-to-one), a view, enums, a composite type and
// functions, then type-checked with `tsc` in a sample program that queries through
// @supabase/postgrest-js; its @ts-expect-error lines (wrong column, wrong value type) must fail.
import { spawnSync } from 'node:child_process';
import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const SCHEMA = `
create type mood as enum ('happy', 'sad');
create type address as (street text, zip int);
create domain email_address as text check (value like '%@%');
create table authors (
  id bigint generated always as identity primary key,
  name text not null,
  email varchar(200),
  contact email_address,
  moods mood[],
  mood mood not null default 'happy',
  tags text[] not null default '{}',
  scores int[],
  rating real,
  joined_at timestamptz not null default now()
);
create table profiles (
  id uuid primary key default gen_random_uuid(),
  author_id bigint not null unique references authors(id),
  bio text,
  home address
);
create table posts (
  id serial primary key,
  author_id bigint not null references authors(id),
  title text not null,
  body jsonb,
  meta json not null default '{}',
  price numeric(10,2),
  views bigint not null default 0,
  published boolean not null default false,
  published_on date,
  title_length int generated always as (length(title)) stored,
  "Odd Name" text
);
create view post_titles as
  select p.id, p.title, a.name as author_name from posts p join authors a on a.id = p.author_id;
create view published_posts as select id, author_id, title, published from posts where published;
create function add_numbers(a int, b int default 1) returns int language sql immutable as $$ select a + b $$;
create function posts_by(author bigint) returns setof posts language sql stable as
  $$ select * from posts where author_id = author $$;
create function author_stats() returns table (author_id bigint, post_count bigint) language sql stable as
  $$ select author_id, count(*) from posts group by 1 $$;
`;

const PROGRAM = `
import { PostgrestClient } from '@supabase/postgrest-js'
import type { Database, Tables, TablesInsert } from './database.types'

const db = new PostgrestClient<Database>('http://localhost:7130/api/database')

export async function typed() {
  // Many-to-one embed: the author of a post is one object.
  const { data: post } = await db.from('posts').select('id, title, price, authors(name, mood)').eq('id', 1).single()
  if (post) {
    const title: string = post.title
    const price: number | null = post.price
    const author: { name: string; mood: 'happy' | 'sad' } | null = post.authors
    // @ts-expect-error a text column is not a number
    const wrong: number = post.title
    void [title, price, author, wrong]
  }
  // One-to-many and one-to-one embeds.
  const { data: authors } = await db.from('authors').select('name, tags, posts(title, body), profiles(bio)')
  for (const a of authors ?? []) {
    const titles: string[] = a.posts.map((p) => p.title)
    const bio: string | null | undefined = a.profiles?.bio
    const tags: string[] = a.tags
    void [titles, bio, tags]
  }
  const { data: contacts } = await db.from('authors').select('contact, moods')
  for (const c of contacts ?? []) {
    const contact: string | null = c.contact
    const moods: ('happy' | 'sad')[] | null = c.moods
    void [contact, moods]
  }
  // The view and the helpers.
  const { data: rows } = await db.from('post_titles').select('*')
  const names: (string | null)[] = (rows ?? []).map((r) => r.author_name)
  const row: Tables<'posts'> | undefined = undefined
  void [names, row]
  // A simple view accepts writes, typed like its table's.
  await db.from('published_posts').insert({ author_id: 1, title: 'Via the view', published: true })

  // Inserts: required columns, defaults optional, generated columns never written.
  const newPost: TablesInsert<'posts'> = { author_id: 1, title: 'Hello', body: { any: ['json', 1] } }
  await db.from('posts').insert(newPost)
  await db.from('authors').insert({ name: 'Ada', tags: ['a'], mood: 'sad', scores: [1, 2] })
  // @ts-expect-error a wrong column name
  await db.from('posts').insert({ author_id: 1, titel: 'typo' })
  // @ts-expect-error a wrong value type
  await db.from('posts').insert({ author_id: 1, title: 42 })
  // @ts-expect-error an enum value that does not exist
  await db.from('authors').insert({ name: 'Bob', mood: 'angry' })
  // @ts-expect-error a generated column is never written
  await db.from('posts').insert({ author_id: 1, title: 'x', title_length: 3 })
  // @ts-expect-error an identity ALWAYS column is never written
  await db.from('authors').insert({ id: 5, name: 'Eve' })
  await db.from('posts').update({ published: true, published_on: '2026-01-01' }).eq('id', 1)

  // Functions: arguments and results.
  const { data: sum } = await db.rpc('add_numbers', { a: 1 })
  const total: number | null = sum
  // @ts-expect-error an argument of the wrong type
  await db.rpc('add_numbers', { a: 'one' })
  const { data: stats } = await db.rpc('author_stats')
  const counts: number[] = (stats ?? []).map((s) => s.post_count)
  void [total, counts]
  const mood: Database['public']['Enums']['mood'] = 'happy'
  const home: Database['public']['CompositeTypes']['address'] = { street: 'Main', zip: 1 }
  void [mood, home]
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    skipLibCheck: true,
    types: [],
    noUnusedLocals: false,
  },
  include: ['*.ts'],
};

let t: TestApp;
let generated: { statusCode: number; body: string; contentType: string };

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(SCHEMA);
  const res = await t.request({
    method: 'GET',
    url: '/api/database/types?lang=typescript',
    headers: { 'x-api-key': t.apiKey },
  });
  generated = { statusCode: res.statusCode, body: res.body, contentType: String(res.headers['content-type']) };
});
afterAll(() => t.close());

describe('GET /api/database/types?lang=typescript', () => {
  it('answers the Database type with tables, views, functions, enums, composite types and relationships', () => {
    expect(generated.statusCode, generated.body).toBe(200);
    expect(generated.contentType).toMatch(/typescript/);
    const ts = generated.body;
    expect(ts).toContain('export type Database = {');
    for (const section of ['Tables:', 'Views:', 'Functions:', 'Enums:', 'CompositeTypes:'])
      expect(ts).toContain(section);
    expect(ts).toContain('mood: "happy" | "sad"');
    expect(ts).toContain('foreignKeyName: "profiles_author_id_fkey"');
    expect(ts).toMatch(/foreignKeyName: "profiles_author_id_fkey"\n\s+columns: \["author_id"\]\n\s+isOneToOne: true/);
    expect(ts).toMatch(/foreignKeyName: "posts_author_id_fkey"\n\s+columns: \["author_id"\]\n\s+isOneToOne: false/);
    expect(ts).toContain('"Odd Name": string | null');
    expect(ts).toContain('export const Constants');
  });

  it('compiles with @supabase/postgrest-js in a sample program whose @ts-expect-error lines fail', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'plinth-types-'));
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'database.types.ts'), generated.body);
    await writeFile(path.join(dir, 'app.ts'), PROGRAM);
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 60_000);

  it('refuses a language it does not generate with 400', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/database/types?lang=python',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(res.statusCode).toBe(400);
  });
});
