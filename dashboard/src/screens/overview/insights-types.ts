// The shapes of /api/insights answers (src/modules/insights/insights.schemas.ts) and the links
// from a chart to the logs behind it.

export type InsightsRange = 'hour' | 'day' | 'week';

interface Window {
  range: InsightsRange;
  from: string;
  to: string;
  bucketSeconds: number;
}

export interface CountsPoint {
  t: string;
  total: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface Traffic extends Window {
  points: CountsPoint[];
}

export interface FunctionsInsights extends Window {
  points: CountsPoint[];
  functions: { slug: string; invocations: number; errors: number; p95Ms: number | null }[];
}

export interface RealtimeInsights extends Window {
  points: { t: string; messages: number; connections: number }[];
  channels: { channel: string; messages: number }[];
}

export interface AuthInsights extends Window {
  points: { t: string; signUps: number; signIns: number }[];
}

export interface SizesInsights extends Window {
  points: { t: string; databaseBytes: number | null; storageBytes: number | null }[];
  buckets: { bucket: string; objects: number; bytes: number }[];
}

export interface TableInsights {
  table: string;
  rows: number;
  bytes: number;
  seqScans: number;
  indexScans: number;
  indexes: { name: string; scans: number; bytes: number }[];
}

/** The logs screen filtered to a chart's source (and level) over its window. */
export function logsLink(window: Window, source: 'requests' | 'functions', level?: 'error' | 'warn'): string {
  const query = new URLSearchParams({ source, from: window.from, to: window.to });
  if (level) query.set('level', level);
  return `/logs?${query}`;
}

/** "14:05" within a day, "Mon 14:00" over a week. */
export function tickOf(range: InsightsRange): (t: string) => string {
  const options: Intl.DateTimeFormatOptions =
    range === 'week'
      ? { weekday: 'short', hour: '2-digit', minute: '2-digit' }
      : { hour: '2-digit', minute: '2-digit' };
  const format = new Intl.DateTimeFormat(undefined, options);
  return (t) => format.format(new Date(t));
}
