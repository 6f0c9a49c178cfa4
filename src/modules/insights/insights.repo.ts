// SQL of the insights: folding closed minutes of logs.entries and realtime.messages into
// logs.insight_rollup (one set of buckets per chart range's width), gauge samples, and the series
// the console's charts read: the rollup for folded minutes, the raw rows only for the few after.
import type { Queryable } from '../../core/db.js';

/** Latency buckets per unit of ln(1 + ms): bucket b holds [e^(b/8) - 1, e^((b+1)/8) - 1) ms. */
export const LATENCY_BUCKETS_PER_LN = 8;

const ROLLUP_LOCK = "hashtext('plinth.insights.rollup')";

/** The bucket widths kept, in seconds: one per chart range (hour, day, week). */
export const WIDTHS = [60, 600, 3600] as const;

/**
 * Counts of [$1, $2) from the raw rows in buckets $3 seconds wide (aligned to the epoch), in the
 * rollup's columns. The console's own assets (/dashboard) are not traffic; function output lines
 * have no status and are not invocations.
 */
const RAW_BUCKETS = `
  select date_bin(make_interval(secs => $3), ts, 'epoch') as bucket, source, coalesce(slug, '') as slug,
         (status / 100)::smallint as status_class,
         floor(ln(1 + greatest(coalesce(duration_ms, 0), 0)) * ${LATENCY_BUCKETS_PER_LN})::smallint as latency_bucket,
         count(*)::int as count
    from logs.entries
   where source in ('requests', 'functions') and status is not null and ts >= $1 and ts < $2
     and (route is null or route not like '/dashboard%')
   group by 1, 2, 3, 4, 5
  union all
  select date_bin(make_interval(secs => $3), created_at, 'epoch'), 'realtime', channel_name, 0::smallint, 0::smallint,
         count(*)::int
    from realtime.messages where created_at >= $1 and created_at < $2
   group by 1, 3`;

/** Takes the fold for this transaction, or false when another server is folding now. */
export async function claimRollup(tx: Queryable): Promise<boolean> {
  const [row] = await tx.unsafe<{ claimed: boolean }[]>(`select pg_try_advisory_xact_lock(${ROLLUP_LOCK}) as claimed`);
  return row!.claimed;
}

export async function rolledUntil(db: Queryable): Promise<Date | null> {
  const [row] = await db<{ rolledUntil: Date }[]>`select rolled_until as "rolledUntil" from logs.rollup_state`;
  return row?.rolledUntil ?? null;
}

/** The time of the oldest log entry or realtime message since `since` (null when there is none). */
export async function oldestRow(db: Queryable, since: Date): Promise<Date | null> {
  const [row] = await db<{ at: Date | null }[]>`
    select least(
      (select min(ts) from logs.entries where source in ('requests', 'functions') and ts >= ${since}),
      (select min(created_at) from realtime.messages where created_at >= ${since})) as at`;
  return row?.at ?? null;
}

/** Folds [from, to) (whole minutes) into every width's buckets and moves the mark to `to`. */
export async function foldMinutes(tx: Queryable, from: Date, to: Date): Promise<void> {
  for (const width of WIDTHS) {
    await tx.unsafe(
      `insert into logs.insight_rollup as r (width, bucket, source, slug, status_class, latency_bucket, count)
       select $3::int, * from (${RAW_BUCKETS}) raw
       on conflict (width, bucket, source, slug, status_class, latency_bucket) do update set count = r.count + excluded.count`,
      [from, to, width],
    );
  }
  await tx`insert into logs.rollup_state (rolled_until) values (${to})
           on conflict (id) do update set rolled_until = excluded.rolled_until`;
}

/** This minute's samples: the project's database and storage bytes, and this server's sockets. */
export async function sampleGauges(db: Queryable, minute: Date, server: string, connections: number): Promise<void> {
  await db`
    insert into logs.gauge_samples (minute, name, server, value)
    select ${minute}, 'database_bytes', '', pg_database_size(current_database())
    union all select ${minute}, 'storage_bytes', '', coalesce(sum(size), 0) from storage.objects
    union all select ${minute}, 'realtime_connections', ${server}, ${connections}
    on conflict (name, minute, server) do update set value = excluded.value`;
}

/** Drops rollups and samples older than `before` (the charts' longest range and a margin). */
export async function pruneBefore(db: Queryable, before: Date): Promise<void> {
  await db`delete from logs.insight_rollup where bucket < ${before}`;
  await db`delete from logs.gauge_samples where minute < ${before}`;
  await db`delete from auth.sign_in_minutes where minute < ${before}`;
}

export interface Window {
  from: Date;
  to: Date;
  bucketSeconds: number;
}

/**
 * A window's buckets as rollup rows ($1 from, $2 to, $3 width, in the statement that embeds it):
 * the folded minutes from the rollup, the minutes after the mark from the raw rows.
 */
const ROWS_OF_WINDOW = `
  rows as (
    select bucket as t, source, slug, status_class, latency_bucket, count from logs.insight_rollup
     where width = $3 and bucket >= $1 and bucket < $2
    union all
    select bucket, source, slug, status_class, latency_bucket, count
      from (${RAW_BUCKETS.replaceAll('$1', 'greatest($1, coalesce((select rolled_until from logs.rollup_state), $1))')}) raw
  )`;

/** Every bucket of the window ($1 from, $2 to, $3 bucket width), empty ones included. */
const BUCKETS = `buckets as (
    select generate_series($1::timestamptz, $2::timestamptz - make_interval(secs => $3), make_interval(secs => $3)) as t
  )`;

export interface CountsPoint {
  t: Date;
  total: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  /** Latency buckets holding the 50th and 95th percentile (null without traffic). */
  p50Bucket: number | null;
  p95Bucket: number | null;
}

/** Requests or function invocations (of one function, or all) per bucket, with percentiles. */
export async function countSeries(
  db: Queryable,
  w: Window,
  source: 'requests' | 'functions',
  slug: string | null,
): Promise<CountsPoint[]> {
  return db.unsafe<CountsPoint[]>(
    `with ${ROWS_OF_WINDOW}, ${BUCKETS},
     binned as (
       select t, status_class, latency_bucket, sum(count) as n
         from rows where source = $4 and ($5::text is null or slug = $5)
        group by 1, 2, 3
     ),
     latency as (
       select t, latency_bucket, sum(n) as n from binned group by 1, 2
     ),
     running as (
       select t, latency_bucket,
              sum(n) over (partition by t order by latency_bucket) as below,
              sum(n) over (partition by t) as total
         from latency
     ),
     percentiles as (
       select t, min(latency_bucket) filter (where below >= 0.5 * total) as p50,
                 min(latency_bucket) filter (where below >= 0.95 * total) as p95
         from running group by t
     ),
     classes as (
       select t, sum(n)::float8 as total,
              coalesce(sum(n) filter (where status_class = 2), 0)::float8 as s2,
              coalesce(sum(n) filter (where status_class = 3), 0)::float8 as s3,
              coalesce(sum(n) filter (where status_class = 4), 0)::float8 as s4,
              coalesce(sum(n) filter (where status_class = 5), 0)::float8 as s5
         from binned group by t
     )
     select b.t, coalesce(c.total, 0) as total, coalesce(c.s2, 0) as "s2xx", coalesce(c.s3, 0) as "s3xx",
            coalesce(c.s4, 0) as "s4xx", coalesce(c.s5, 0) as "s5xx",
            p.p50 as "p50Bucket", p.p95 as "p95Bucket"
       from buckets b left join classes c using (t) left join percentiles p using (t)
      order by b.t`,
    [w.from, w.to, w.bucketSeconds, source, slug],
  );
}

export interface FunctionTotals {
  slug: string;
  invocations: number;
  errors: number;
  p95Bucket: number | null;
}

/** Each function's invocations, server errors and p95 bucket over the window, busiest first. */
export async function functionTotals(db: Queryable, w: Window): Promise<FunctionTotals[]> {
  return db.unsafe<FunctionTotals[]>(
    `with ${ROWS_OF_WINDOW},
     latency as (
       select slug, latency_bucket, sum(count) as n from rows where source = 'functions' group by 1, 2
     ),
     running as (
       select slug, latency_bucket, sum(n) over (partition by slug order by latency_bucket) as below,
              sum(n) over (partition by slug) as total
         from latency
     )
     select m.slug, sum(m.count)::float8 as invocations,
            coalesce(sum(m.count) filter (where m.status_class = 5), 0)::float8 as errors,
            (select min(r.latency_bucket) from running r where r.slug = m.slug and r.below >= 0.95 * r.total) as "p95Bucket"
       from rows m where m.source = 'functions'
      group by m.slug order by invocations desc, m.slug`,
    [w.from, w.to, w.bucketSeconds],
  );
}

export interface PairPoint {
  t: Date;
  a: number;
  b: number;
}

/** Realtime messages per bucket (a) and the most connections sampled in it across servers (b). */
export async function realtimeSeries(db: Queryable, w: Window): Promise<PairPoint[]> {
  return db.unsafe<PairPoint[]>(
    `with ${ROWS_OF_WINDOW}, ${BUCKETS},
     messages as (
       select t, sum(count)::float8 as n from rows where source = 'realtime' group by 1
     ),
     per_minute as (
       select minute, sum(value) as n from logs.gauge_samples
        where name = 'realtime_connections' and minute >= $1 and minute < $2 group by minute
     ),
     connections as (
       select date_bin(make_interval(secs => $3), minute, $1) as t, max(n)::float8 as n from per_minute group by 1
     )
     select b.t, coalesce(m.n, 0) as a, coalesce(c.n, 0) as b
       from buckets b left join messages m using (t) left join connections c using (t)
      order by b.t`,
    [w.from, w.to, w.bucketSeconds],
  );
}

/** Sign-ups (users created, anonymous ones apart) as a, sign-ins (sessions started) as b. */
export async function authSeries(db: Queryable, w: Window): Promise<PairPoint[]> {
  return db.unsafe<PairPoint[]>(
    `with ${BUCKETS},
     ups as (
       select date_bin(make_interval(secs => $3), created_at, $1) as t, count(*)::float8 as n from auth.users
        where created_at >= $1 and created_at < $2 and not is_anonymous group by 1
     ),
     ins as (
       select date_bin(make_interval(secs => $3), minute, $1) as t, sum(count)::float8 as n from auth.sign_in_minutes
        where minute >= $1 and minute < $2 group by 1
     )
     select b.t, coalesce(u.n, 0) as a, coalesce(i.n, 0) as b
       from buckets b left join ups u using (t) left join ins i using (t)
      order by b.t`,
    [w.from, w.to, w.bucketSeconds],
  );
}

/** The last database (a) and storage (b) bytes sampled in each bucket (null where none was). */
export async function sizeSeries(db: Queryable, w: Window): Promise<{ t: Date; a: number | null; b: number | null }[]> {
  return db.unsafe(
    `with ${BUCKETS},
     samples as (
       select date_bin(make_interval(secs => $3), minute, $1) as t, name, value, minute from logs.gauge_samples
        where name in ('database_bytes', 'storage_bytes') and minute >= $1 and minute < $2
     ),
     last as (
       select distinct on (t, name) t, name, value from samples order by t, name, minute desc
     )
     select b.t, max(l.value) filter (where l.name = 'database_bytes') as a,
                 max(l.value) filter (where l.name = 'storage_bytes') as b
       from buckets b left join last l using (t)
      group by b.t order by b.t`,
    [w.from, w.to, w.bucketSeconds],
  );
}

/** The busiest realtime channels of the window by messages. */
export async function channelTotals(
  db: Queryable,
  w: Window,
  limit: number,
): Promise<{ channel: string; messages: number }[]> {
  return db.unsafe(
    `with ${ROWS_OF_WINDOW}
     select slug as channel, sum(count)::float8 as messages from rows where source = 'realtime'
      group by slug order by messages desc, slug limit $4`,
    [w.from, w.to, w.bucketSeconds, limit],
  );
}

/** Each bucket's objects and bytes now. */
export async function bucketTotals(db: Queryable): Promise<{ bucket: string; objects: number; bytes: number }[]> {
  return db`
    select b.name as bucket, count(o.*)::float8 as objects, coalesce(sum(o.size), 0)::float8 as bytes
      from storage.buckets b left join storage.objects o on o.bucket = b.name
     group by b.name order by bytes desc, b.name`;
}

export interface TableTotals {
  table: string;
  rows: number;
  bytes: number;
  seqScans: number;
  indexScans: number;
  indexes: { name: string; scans: number; bytes: number }[];
}

/** The public tables: estimated rows, total size, and how often they were read by index or by scan. */
export async function tableTotals(db: Queryable): Promise<TableTotals[]> {
  return db`
    select t.relname as table, greatest(c.reltuples, t.n_live_tup)::float8 as rows,
           pg_total_relation_size(t.relid)::float8 as bytes, t.seq_scan::float8 as "seqScans",
           coalesce(t.idx_scan, 0)::float8 as "indexScans",
           coalesce((select json_agg(json_build_object('name', i.indexrelname, 'scans', i.idx_scan,
                                                        'bytes', pg_relation_size(i.indexrelid)) order by i.indexrelname)
                       from pg_stat_user_indexes i where i.relid = t.relid), '[]') as indexes
      from pg_stat_user_tables t join pg_class c on c.oid = t.relid
     where t.schemaname = 'public'
     order by bytes desc, t.relname`;
}
