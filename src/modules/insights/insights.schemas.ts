// The wire contract of the console's charts: one admin route per chart family, each a series of
// fixed buckets over the last hour (1-minute buckets), day (10 minutes) or week (1 hour).
import { z } from 'zod';

export const insightsRange = z.enum(['hour', 'day', 'week'], { error: 'range must be hour, day or week' });
export type InsightsRange = z.infer<typeof insightsRange>;

export const rangeQuery = z.object({ range: insightsRange.default('day') });
export const functionsQuery = rangeQuery.extend({
  slug: z.string().min(1).max(255).optional(),
});

const windowShape = {
  range: insightsRange,
  from: z.string(),
  to: z.string(),
  bucketSeconds: z.number(),
};

const countsPoint = z.object({
  t: z.string(),
  total: z.number(),
  s2xx: z.number(),
  s3xx: z.number(),
  s4xx: z.number(),
  s5xx: z.number(),
  /** Share of 5xx answers in the bucket (0 without traffic). */
  errorRate: z.number(),
  /** From latency buckets ~13 % wide: the middle of the bucket holding the percentile. */
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});

export const trafficSeries = z.object({ ...windowShape, points: z.array(countsPoint) });

export const functionsSeries = z.object({
  ...windowShape,
  slug: z.string().nullable(),
  points: z.array(countsPoint),
  functions: z.array(
    z.object({ slug: z.string(), invocations: z.number(), errors: z.number(), p95Ms: z.number().nullable() }),
  ),
});

export const realtimeSeries = z.object({
  ...windowShape,
  points: z.array(z.object({ t: z.string(), messages: z.number(), connections: z.number() })),
  channels: z.array(z.object({ channel: z.string(), messages: z.number() })),
});

export const authSeries = z.object({
  ...windowShape,
  points: z.array(z.object({ t: z.string(), signUps: z.number(), signIns: z.number() })),
});

export const sizesSeries = z.object({
  ...windowShape,
  points: z.array(
    z.object({ t: z.string(), databaseBytes: z.number().nullable(), storageBytes: z.number().nullable() }),
  ),
  buckets: z.array(z.object({ bucket: z.string(), objects: z.number(), bytes: z.number() })),
});

export const tablesInsights = z.object({
  tables: z.array(
    z.object({
      table: z.string(),
      rows: z.number(),
      bytes: z.number(),
      seqScans: z.number(),
      indexScans: z.number(),
      indexes: z.array(z.object({ name: z.string(), scans: z.number(), bytes: z.number() })),
    }),
  ),
});
