// A restore rebuilds the user schemas exactly: a schema with objects of every kind a real project
// has (one case per kind below) is filled with data, backed up, changed (objects dropped, altered
// and created), and restored; the catalog of the user schemas (described by name from pg_catalog)
// and every table's rows must then be what they were at backup time. Each case names its objects
// with its own prefix, so a failure names the kind of object the backup misses.
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXCLUDED_TABLES, platformSchemas } from '../../../src/modules/backups/backups.service.js';
import { restoreDatabase } from '../../../src/modules/backups/restore.service.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { describeCatalog, describeData } from './catalog-description.js';

interface Case {
  what: string;
  /** Every object of the case has a name starting with this. */
  prefix: string;
  setup: string;
  /** What happens after the backup (undone by the restore). */
  change: string;
}

const cases: Case[] = [
  {
    what: 'partitioned tables (range, list, sub-partitions, default partition, indexes, keys)',
    prefix: 'part_',
    setup: `
      create table public.part_events (id bigint not null, at date not null, kind text not null default 'a',
        payload jsonb, primary key (id, at)) partition by range (at);
      create table public.part_events_2025 partition of public.part_events for values from ('2025-01-01') to ('2026-01-01');
      create table public.part_events_2026 partition of public.part_events
        for values from ('2026-01-01') to ('2027-01-01') partition by hash (id);
      create table public.part_events_2026_h0 partition of public.part_events_2026 for values with (modulus 2, remainder 0);
      create table public.part_events_2026_h1 partition of public.part_events_2026 for values with (modulus 2, remainder 1);
      create table public.part_events_other partition of public.part_events default;
      create index part_events_kind on public.part_events (kind, at);
      create table public.part_refs (id int primary key, event_id bigint, event_at date,
        foreign key (event_id, event_at) references public.part_events (id, at));
      alter table public.part_events add constraint part_events_kind_check check (kind <> '');
      insert into public.part_events values (1, '2025-03-01', 'a', '{"n": 1}'), (2, '2026-02-01', 'a', null),
        (3, '2026-05-01', 'b', '[1, 2]'),
        (4, '1999-01-01', 'a', null);
      insert into public.part_refs values (1, 3, '2026-05-01');
      alter table public.part_events enable row level security;
      create policy part_events_read on public.part_events for select to anon using (kind = 'a');
      grant select on public.part_events to anon;`,
    change: `
      drop table public.part_refs;
      drop table public.part_events_2025;
      insert into public.part_events values (5, '2026-06-01', 'c', null);
      create table public.part_events_2030 partition of public.part_events for values from ('2030-01-01') to ('2031-01-01');
      drop index public.part_events_kind;`,
  },
  {
    what: 'domains (over an extension type, with checks, defaults, NOT NULL)',
    prefix: 'dom_',
    setup: `
      create extension if not exists citext with schema public;
      create domain public.dom_email as public.citext constraint dom_email_at check (value like '%@%');
      create domain public.dom_positive as int not null default 1 constraint dom_positive_check check (value > 0);
      create table public.dom_people (id int primary key, email public.dom_email, age public.dom_positive);
      insert into public.dom_people values (1, 'A@Example.com', 30), (2, null, 1);`,
    change: `
      alter domain public.dom_positive drop constraint dom_positive_check;
      drop table public.dom_people;
      drop domain public.dom_email;
      create domain public.dom_later as text;`,
  },
  {
    what: 'composite types, range types, arrays, jsonb and awkward values',
    prefix: 'typ_',
    setup: `
      create type public.typ_address as (street text, zip text);
      create function public.typ_float_diff(a float8, b float8) returns float8 language sql immutable as $$ select a - b $$;
      create type public.typ_floatrange as range (subtype = float8, subtype_diff = public.typ_float_diff);
      create table public.typ_values (id int primary key, home public.typ_address, others public.typ_address[],
        span public.typ_floatrange, during tstzrange, tags text[], grid int[], meta jsonb, raw bytea, amount numeric,
        at timestamptz, note text);
      insert into public.typ_values values
        (1, ('Main St 1', '1000'), array[('a', 'b')::public.typ_address, null], '[1.5,2.5)', '[2026-01-01,2026-02-01)',
         array['x', null, 'a "quoted", \\back\\slash'], '{{1,2},{3,4}}', '{"a": [1, {"b": null}], "c": "\\u00e9"}',
         '\\x00ff0a5c', 'NaN', 'infinity', E'tab\\there\\nnewline \\\\. end'),
        (2, null, '{}', 'empty', null, null, null, 'null', '', '-0.000001', '-infinity', E'\\\\.');`,
    change: `
      drop table public.typ_values;
      drop type public.typ_address;
      alter type public.typ_floatrange rename to typ_renamed;`,
  },
  {
    what: 'identity and generated columns, defaults calling functions, collations, dropped columns',
    prefix: 'idg_',
    setup: `
      create function public.idg_code(n int) returns text language sql immutable as $$ select 'C-' || n $$;
      create function public.idg_region() returns text language sql stable as $$ select 'eu' $$;
      create table public.idg_items (
        id int generated by default as identity (start with 1000 increment by 10 maxvalue 100000) primary key,
        seq bigint generated always as identity,
        gone text,
        region text not null default public.idg_region(),
        price numeric(10, 2), qty int,
        total numeric generated always as (price * qty) stored,
        code text generated always as (public.idg_code(qty)) stored,
        name text collate "C",
        created timestamptz default now());
      alter table public.idg_items drop column gone;
      insert into public.idg_items (price, qty, name) values (1.5, 2, 'b'), (3, 1, 'A');`,
    change: `
      insert into public.idg_items (price, qty, name) values (9, 9, 'later');
      alter table public.idg_items alter column region drop default, drop column code;
      alter table public.idg_items alter column id restart with 5;`,
  },
  {
    what: 'check, unique, exclusion and foreign-key constraints (deferrable, self-referencing, cycles)',
    prefix: 'con_',
    setup: `
      create extension if not exists btree_gist with schema public;
      create table public.con_a (id int primary key, b_id int, label text unique nulls not distinct,
        check (id > 0), constraint con_a_label_len check (length(label) < 50) not valid);
      create table public.con_b (id int primary key, a_id int not null references public.con_a on delete cascade,
        parent int references public.con_b (id) deferrable initially deferred);
      alter table public.con_a add constraint con_a_b_fk foreign key (b_id) references public.con_b (id)
        deferrable initially deferred;
      create table public.con_rooms (room int, during tstzrange, exclude using gist (room with =, during with &&));
      insert into public.con_a values (1, 10, 'one'), (2, 11, null);
      insert into public.con_b values (10, 1, 11), (11, 2, 10);
      insert into public.con_rooms values (1, '[2026-01-01,2026-01-02)'), (1, '[2026-01-02,2026-01-03)');`,
    change: `
      alter table public.con_a drop constraint con_a_b_fk, drop constraint con_a_label_len;
      alter table public.con_b drop constraint con_b_parent_fkey;
      delete from public.con_a where id = 2;
      alter table public.con_rooms drop constraint con_rooms_room_during_excl;`,
  },
  {
    what: 'indexes (partial, expression, unique, covering, gin, descending)',
    prefix: 'ix_',
    setup: `
      create table public.ix_docs (id int primary key, email text, body jsonb, score int, archived boolean default false);
      create unique index ix_docs_email on public.ix_docs (lower(email)) where not archived;
      create index ix_docs_body on public.ix_docs using gin (body jsonb_path_ops);
      create index ix_docs_score on public.ix_docs (score desc nulls last) include (email);
      insert into public.ix_docs values (1, 'A@x', '{"k": 1}', 5, false), (2, 'a@x', null, null, true);`,
    change: `
      drop index public.ix_docs_email;
      create index ix_docs_later on public.ix_docs (id, score);`,
  },
  {
    what: 'views on views (created out of order), check options, materialized views and their data',
    prefix: 'vw_',
    setup: `
      create table public.vw_base (n int primary key, grp text);
      insert into public.vw_base select i, case when i % 2 = 0 then 'even' else 'odd' end from generate_series(1, 10) i;
      create view public.vw_top as select 1 as n;
      create view public.vw_bottom with (security_invoker = true) as select n from public.vw_base where n > 2
        with cascaded check option;
      create or replace view public.vw_top as select n from public.vw_bottom where n < 8;
      create materialized view public.vw_totals as select grp, count(*) as c, sum(n) as s from public.vw_base group by grp;
      create unique index vw_totals_grp on public.vw_totals (grp);
      create materialized view public.vw_empty as select n from public.vw_top with no data;
      create function public.vw_tops() returns setof public.vw_top language sql stable as $$ select * from public.vw_top $$;`,
    change: `
      insert into public.vw_base values (11, 'odd');
      refresh materialized view public.vw_totals;
      refresh materialized view public.vw_empty;
      drop function public.vw_tops();
      drop view public.vw_top cascade;`,
  },
  {
    what: 'triggers (WHEN clause, on a view, disabled, constraint, transition tables) and rules',
    prefix: 'trg_',
    setup: `
      create table public.trg_orders (id int primary key, status text, changes int not null default 0);
      create table public.trg_log (at bigserial primary key, what text);
      create function public.trg_count() returns trigger language plpgsql as $$
        begin new.changes := old.changes + 1; return new; end $$;
      create function public.trg_note() returns trigger language plpgsql as $$
        begin insert into public.trg_log (what) values (tg_name); return null; end $$;
      create function public.trg_view_insert() returns trigger language plpgsql as $$
        begin insert into public.trg_orders (id, status) values (new.id, new.status); return new; end $$;
      create trigger trg_orders_count before update on public.trg_orders for each row
        when (old.status is distinct from new.status) execute function public.trg_count();
      create trigger trg_orders_off after insert on public.trg_orders for each statement execute function public.trg_note();
      alter table public.trg_orders disable trigger trg_orders_off;
      create constraint trigger trg_orders_late after insert on public.trg_orders deferrable initially deferred
        for each row execute function public.trg_note();
      create trigger trg_orders_batch after delete on public.trg_orders referencing old table as gone
        for each statement execute function public.trg_note();
      create view public.trg_orders_view as select id, status from public.trg_orders;
      create trigger trg_orders_view_insert instead of insert on public.trg_orders_view for each row
        execute function public.trg_view_insert();
      create rule trg_no_delete_log as on delete to public.trg_log do instead nothing;
      insert into public.trg_orders (id, status) values (1, 'new');
      update public.trg_orders set status = 'paid';`,
    change: `
      drop trigger trg_orders_count on public.trg_orders;
      alter table public.trg_orders enable trigger trg_orders_off;
      drop rule trg_no_delete_log on public.trg_log;
      create trigger trg_orders_later after update on public.trg_orders for each row execute function public.trg_note();`,
  },
  {
    what: 'row-level security (forced, enabled only, off) and policies',
    prefix: 'rls_',
    setup: `
      create table public.rls_forced (id int primary key, owner uuid);
      alter table public.rls_forced enable row level security, force row level security;
      create policy rls_forced_own on public.rls_forced as restrictive for update to authenticated
        using (owner = auth.uid()) with check (owner = auth.uid());
      create table public.rls_enabled (id int primary key);
      create table public.rls_off (id int primary key);
      alter table public.rls_off disable row level security;
      insert into public.rls_forced values (1, null);`,
    change: `
      alter table public.rls_forced no force row level security;
      alter table public.rls_off enable row level security;
      drop policy rls_forced_own on public.rls_forced;
      create policy rls_enabled_all on public.rls_enabled for all to anon using (true);`,
  },
  {
    what: 'grants (table, column-level, sequence, function, type, schema)',
    prefix: 'gr_',
    setup: `
      create table public.gr_secrets (id serial primary key, name text, secret text);
      revoke all on public.gr_secrets from anon, authenticated;
      grant select (id, name) on public.gr_secrets to anon;
      grant update (name) on public.gr_secrets to authenticated with grant option;
      revoke all on sequence public.gr_secrets_id_seq from anon;
      create function public.gr_private() returns int language sql as $$ select 1 $$;
      revoke execute on function public.gr_private() from public, anon;
      create type public.gr_kind as enum ('a', 'b');
      revoke usage on type public.gr_kind from public;
      grant usage on type public.gr_kind to authenticated;`,
    change: `
      grant all on public.gr_secrets to anon;
      grant execute on function public.gr_private() to anon;
      revoke select (name) on public.gr_secrets from anon;`,
  },
  {
    what: 'sequences (owned by columns, free-standing, cycling, descending, never used)',
    prefix: 'seq_',
    setup: `
      create table public.seq_tickets (id serial primary key, n int);
      create sequence public.seq_counter as smallint increment by -2 minvalue -100 maxvalue 10 start with 10 cycle cache 5;
      create sequence public.seq_unused start with 7;
      create sequence public.seq_owned owned by public.seq_tickets.n;
      select nextval('public.seq_counter'), nextval('public.seq_counter'), nextval('public.seq_owned');
      insert into public.seq_tickets (n) values (1), (2), (3);`,
    change: `
      select setval('public.seq_counter', -50), nextval('public.seq_unused');
      alter sequence public.seq_owned owned by none;
      insert into public.seq_tickets (n) values (4);`,
  },
  {
    what: 'a schema other than public (cross-schema references, functions used as defaults, grants)',
    prefix: 'inventory.',
    setup: `
      create schema inventory;
      create function inventory.sku(n int) returns text language sql immutable as $$ select 'SKU-' || n $$;
      create table inventory.items (id int primary key, sku text default inventory.sku(0),
        note_id int references public.ix_docs (id));
      grant usage on schema inventory to authenticated;
      grant select on inventory.items to authenticated;
      insert into inventory.items (id, note_id) values (1, 1);
      create view inventory.item_view as select id, sku from inventory.items;`,
    change: `
      drop schema inventory cascade;
      create schema inventory;
      create table inventory.items (other int);`,
  },
  {
    what: 'table inheritance, extended statistics, storage options and unlogged tables',
    prefix: 'inh_',
    setup: `
      create table public.inh_base (id int primary key, label text check (label <> ''));
      create table public.inh_child (extra int) inherits (public.inh_base);
      create unlogged table public.inh_scratch (id int, body text) with (fillfactor = 70, autovacuum_enabled = false);
      create statistics public.inh_stats (ndistinct, dependencies) on id, label from public.inh_base;
      insert into public.inh_base values (1, 'base');
      insert into public.inh_child values (2, 'child', 7);
      insert into public.inh_scratch values (1, 'x');`,
    change: `
      alter table public.inh_child no inherit public.inh_base;
      drop statistics public.inh_stats;
      alter table public.inh_scratch set logged, reset (fillfactor);`,
  },
  {
    what: 'routines with SQL-standard bodies, procedures and aggregates',
    prefix: 'fn_',
    setup: `
      create table public.fn_amounts (n int);
      insert into public.fn_amounts values (1), (2), (3);
      create function public.fn_total() returns bigint language sql stable
        begin atomic select sum(n) from public.fn_amounts; end;
      create view public.fn_big as select n from public.fn_amounts where n > 1;
      create function public.fn_big_count() returns bigint language sql stable return (select count(*) from public.fn_big);
      create procedure public.fn_add(k int) language sql begin atomic insert into public.fn_amounts values (k); end;
      create function public.fn_concat_step(acc text, x text) returns text language sql immutable
        as $$ select case when acc = '' then x else acc || ',' || x end $$;
      create aggregate public.fn_join(text) (sfunc = public.fn_concat_step, stype = text, initcond = '');`,
    change: `
      drop aggregate public.fn_join(text);
      drop function public.fn_big_count();
      create aggregate public.fn_later(int) (sfunc = int4pl, stype = int);
      call public.fn_add(4);`,
  },
  {
    what: 'quoted identifiers and default privileges of a schema',
    prefix: 'Odd',
    setup: `
      create schema "Odd Schema";
      create table "Odd Schema"."Odd ""Table""" ("Odd Col" text primary key, "select" int default 1);
      insert into "Odd Schema"."Odd ""Table""" values ('a b', 2);
      create index "Odd Index" on "Odd Schema"."Odd ""Table""" ("select");
      alter default privileges in schema "Odd Schema" grant select on tables to anon;
      alter default privileges in schema "Odd Schema" revoke execute on functions from public;`,
    change: `
      alter default privileges in schema "Odd Schema" revoke select on tables from anon;
      drop table "Odd Schema"."Odd ""Table""";`,
  },
  {
    what: 'tables watched by realtime (their change trigger)',
    prefix: 'rt_',
    setup: `
      create table public.rt_items (id int primary key, label text);
      select realtime.watch_table('public.rt_items');`,
    change: `
      select realtime.unwatch_table('public.rt_items');
      drop table public.rt_items;
      create table public.rt_items (id int primary key);`,
  },
  {
    what: 'comments on every kind of object',
    prefix: 'comment ',
    setup: `
      comment on schema inventory is 'stock';
      comment on table public.part_events is 'partitioned';
      comment on column public.idg_items.price is 'in euros';
      comment on view public.vw_top is 'top view';
      comment on materialized view public.vw_totals is 'totals';
      comment on function public.idg_code(int) is 'code maker';
      comment on type public.typ_address is 'an address';
      comment on domain public.dom_email is 'an email';
      comment on constraint con_a_label_len on public.con_a is 'short labels';
      comment on index public.ix_docs_body is 'json index';
      comment on trigger trg_orders_count on public.trg_orders is 'counts';
      comment on policy rls_forced_own on public.rls_forced is 'own rows';
      comment on sequence public.seq_counter is 'counter';
      comment on column public.typ_address.zip is 'postal code';`,
    change: `
      comment on table public.part_events is null;
      comment on column public.idg_items.price is 'in dollars';
      comment on table public.rls_enabled is 'added later';`,
  },
];

const SCHEMAS = ['public', 'inventory', 'Odd Schema'];
let t: TestApp;
let backupId: string;
let before: { catalog: string[]; data: Record<string, string[]> };
let after: { catalog: string[]; data: Record<string, string[]> };

const asAdmin = (method: string, url: string) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey } });

async function backup(): Promise<string> {
  const created = await asAdmin('POST', '/api/database/backups');
  expect(created.statusCode).toBe(201);
  const row = await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      const row = json.backups.find((b: { id: string }) => b.id === created.json.id);
      expect(row.status).not.toBe('running');
      return row;
    },
    { timeout: 30_000, interval: 50 },
  );
  expect(row).toMatchObject({ status: 'completed', errorMessage: null });
  return created.json.id;
}

const snapshot = async () => ({
  catalog: await describeCatalog(t.deps.sql, SCHEMAS),
  data: await describeData(t.deps.sql, SCHEMAS),
});

beforeAll(async () => {
  t = await startTestApp();
  // Each case in one transaction (deferred constraints are checked at its end).
  for (const c of cases) await t.deps.sql.begin((tx) => tx.unsafe(c.setup).simple());
  before = await snapshot();
  const id = await backup();
  backupId = id;
  for (const c of cases) await t.deps.sql.begin((tx) => tx.unsafe(c.change).simple());
  const changed = await snapshot();
  expect(changed).not.toEqual(before);
  const restored = await asAdmin('POST', `/api/database/backups/${id}/restore`);
  expect(restored.json).toEqual({ message: 'Database restored successfully' });
  after = await snapshot();
}, 120_000);
afterAll(() => t?.close());

describe('a restore rebuilds the user schemas exactly', () => {
  it.each(cases)('$what', ({ prefix }) => {
    const mine = (lines: string[]) => lines.filter((l) => l.includes(prefix));
    expect(mine(before.catalog).length).toBeGreaterThan(0);
    expect(mine(after.catalog)).toEqual(mine(before.catalog));
    const tables = (d: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(d).filter(([name]) => name.includes(prefix)));
    expect(tables(after.data)).toEqual(tables(before.data));
  });

  it('the whole catalog of the user schemas and all their rows', () => {
    expect(after.catalog).toEqual(before.catalog);
    expect(after.data).toEqual(before.data);
  });

  it('realtime knows the restored table it watches (by its new oid)', async () => {
    const [row] = await t.deps.sql`
      select table_oid = 'public.rt_items'::regclass as current from realtime.watched_tables where table_name = 'public.rt_items'`;
    expect(row).toEqual({ current: true });
    const [unwatched] = await t.deps.sql`select realtime.unwatch_table('public.rt_items') as done`;
    expect(unwatched).toEqual({ done: true });
  });

  it('also on a fresh database that never held any of it (its extensions not installed)', async () => {
    const download = await asAdmin('GET', `/api/database/backups/${backupId}/download`);
    expect(download.statusCode).toBe(200);
    const fresh = await startTestApp();
    try {
      const scope = {
        platformSchemas: platformSchemas(fresh.deps.migrations),
        excludedTables: EXCLUDED_TABLES,
        archiveKeys: fresh.deps.hmacKeys.backupArchives,
      };
      // As an unsigned archive: everything Plinth's dump writes passes the admin SQL guard.
      await restoreDatabase(fresh.deps.sql, scope, Readable.from([gunzipSync(download.rawPayload)]), {
        signed: false,
      });
      expect(await describeCatalog(fresh.deps.sql, SCHEMAS)).toEqual(before.catalog);
      expect(await describeData(fresh.deps.sql, SCHEMAS)).toEqual(before.data);
    } finally {
      await fresh.close();
    }
  });
});
