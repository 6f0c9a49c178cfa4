// The console's charts: series over the last hour, day or week in fixed buckets, and the
// per-area totals beside them. Reads go to the rollup (insights.repo.ts); rollup.ts folds it.
import type { Queryable } from '../../core/db.js';
import type { Clock } from '../../core/clock.js';
import * as repo from './insights.repo.js';
import type { InsightsRange } from './insights.schemas.js';

/** Each range's length and bucket width, in seconds: 60, 144 and 168 points. */
const RANGES: Record<InsightsRange, { seconds: number; bucket: number }> = {
  hour: { seconds: 3_600, bucket: 60 },
  day: { seconds: 86_400, bucket: 600 },
  week: { seconds: 604_800, bucket: 3_600 },
};

/** The longest range and a day's margin: older rollups and samples are pruned. */
export const KEEP_MS = (RANGES.week.seconds + 86_400) * 1000;

/** The window of a range ending with the bucket that holds `now`. */
export function windowOf(range: InsightsRange, now: Date): repo.Window {
  const { seconds, bucket } = RANGES[range];
  const bucketMs = bucket * 1000;
  const to = new Date(Math.ceil((now.getTime() + 1) / bucketMs) * bucketMs);
  return { from: new Date(to.getTime() - seconds * 1000), to, bucketSeconds: bucket };
}

/** A latency bucket's middle in ms (geometric), 0.1 ms precision; the bucket is ~13 % wide. */
export const bucketMs = (bucket: number | null): number | null =>
  bucket === null ? null : Math.round((Math.exp((bucket + 0.5) / repo.LATENCY_BUCKETS_PER_LN) - 1) * 10) / 10;

const span = (w: repo.Window) => ({
  from: w.from.toISOString(),
  to: w.to.toISOString(),
  bucketSeconds: w.bucketSeconds,
});
const at = (t: Date) => t.toISOString();

function countsView(points: repo.CountsPoint[]) {
  return points.map((p) => ({
    t: at(p.t),
    total: p.total,
    s2xx: p.s2xx,
    s3xx: p.s3xx,
    s4xx: p.s4xx,
    s5xx: p.s5xx,
    errorRate: p.total > 0 ? p.s5xx / p.total : 0,
    p50Ms: bucketMs(p.p50Bucket),
    p95Ms: bucketMs(p.p95Bucket),
  }));
}

export function createInsightsService(deps: { sql: Queryable; clock: Clock }) {
  const { sql, clock } = deps;
  const window = (range: InsightsRange) => windowOf(range, clock.now());
  return {
    async traffic(range: InsightsRange) {
      const w = window(range);
      return { range, ...span(w), points: countsView(await repo.countSeries(sql, w, 'requests', null)) };
    },

    async functions(range: InsightsRange, slug: string | undefined) {
      const w = window(range);
      const [points, totals] = await Promise.all([
        repo.countSeries(sql, w, 'functions', slug ?? null),
        repo.functionTotals(sql, w),
      ]);
      return {
        range,
        ...span(w),
        slug: slug ?? null,
        points: countsView(points),
        functions: totals.map((f) => ({
          slug: f.slug,
          invocations: f.invocations,
          errors: f.errors,
          p95Ms: bucketMs(f.p95Bucket),
        })),
      };
    },

    async realtime(range: InsightsRange) {
      const w = window(range);
      const [points, channels] = await Promise.all([repo.realtimeSeries(sql, w), repo.channelTotals(sql, w, 20)]);
      return {
        range,
        ...span(w),
        points: points.map((p) => ({ t: at(p.t), messages: p.a, connections: p.b })),
        channels,
      };
    },

    async auth(range: InsightsRange) {
      const w = window(range);
      const points = await repo.authSeries(sql, w);
      return { range, ...span(w), points: points.map((p) => ({ t: at(p.t), signUps: p.a, signIns: p.b })) };
    },

    async sizes(range: InsightsRange) {
      const w = window(range);
      const points = await repo.sizeSeries(sql, w);
      return {
        range,
        ...span(w),
        points: points.map((p) => ({ t: at(p.t), databaseBytes: p.a, storageBytes: p.b })),
        buckets: await repo.bucketTotals(sql),
      };
    },

    tables: async () => ({ tables: await repo.tableTotals(sql) }),
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
