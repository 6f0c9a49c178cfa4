// The metrics one app instance reports, in a prom-client registry of its own (never the
// library's global one): request latency by route pattern, method and status (its count is the
// request rate), function invocations and their errors, the database pool's connections in use
// and waiting, the log writer's drops, realtime's refusals, and the library's process metrics (event-loop lag, memory, CPU, handles).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolGuard } from '../../core/pool-guard.js';

/** Seconds; from a cached read to a long function call or admin SQL statement. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Methods Plinth serves; any other (PROPFIND, MKCOL, …) is counted as 'other'. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Label values a client cannot multiply: an unknown method folds into 'other', and the status of
 * an answer a function chose (any of 100-599) into its class ('2xx'); Plinth's own routes answer
 * a bounded set of codes, kept exact.
 */
export function requestLabels(route: string, method: string, status: number, chosenByFunction: boolean) {
  const statusLabel = chosenByFunction ? `${Math.trunc(status / 100)}xx` : String(status);
  return { route, method: KNOWN_METHODS.has(method) ? method : 'other', status_code: statusLabel };
}

export interface Metrics {
  registry: Registry;
  /** One answered request; `route` is the route pattern ('unmatched' for no route). */
  observeRequest(route: string, method: string, status: number, seconds: number, chosenByFunction?: boolean): void;
  /** One function invocation and its answer's status. */
  observeInvocation(status: number): void;
}

/** Image transformations' counters since start (storage's images service). */
export interface ImageCounts {
  hits: number;
  misses: number;
  evictions: number;
  refused: number;
  running: number;
  waiting: number;
}

export function createMetrics(
  pool: PoolGuard,
  logDropped: () => number,
  realtimeRefused: () => ReadonlyMap<string, number> = () => new Map(),
  imageCounts?: () => ImageCounts,
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'plinth_' });

  const requests = new Histogram({
    name: 'plinth_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern, method and status; its _count is the request rate',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const invocations = new Counter({
    name: 'plinth_function_invocations_total',
    help: 'Function invocations through /functions/{slug}',
    registers: [registry],
  });
  const invocationErrors = new Counter({
    name: 'plinth_function_invocation_errors_total',
    help: 'Function invocations answered with a 5xx (the function failed, timed out or the runtime was down)',
    registers: [registry],
  });
  new Gauge({
    name: 'plinth_db_pool_in_use',
    help: 'Database work holding a pool connection now',
    registers: [registry],
    collect() {
      this.set(pool.stats().active);
    },
  });
  new Gauge({
    name: 'plinth_db_pool_waiting',
    help: 'Database work waiting for a pool connection now',
    registers: [registry],
    collect() {
      this.set(pool.stats().waiting);
    },
  });
  new Gauge({
    name: 'plinth_db_pool_size',
    help: 'Connections the pool may hold (DB_POOL_SIZE)',
    registers: [registry],
    collect() {
      this.set(pool.options.max);
    },
  });
  new Gauge({
    name: 'plinth_db_pool_refused',
    help: 'Requests refused (503) because the database pool was at capacity, since start',
    registers: [registry],
    collect() {
      this.set(pool.stats().refused);
    },
  });

  new Gauge({
    name: 'plinth_log_dropped_total',
    help: 'Log entries dropped (buffer full, or their batch failed to store), since start',
    registers: [registry],
    collect() {
      this.set(logDropped());
    },
  });

  new Gauge({
    name: 'plinth_realtime_refused_total',
    help: 'Realtime connections and events refused for capacity or abuse (socket caps, budgets, a busy database, oversized or reserved publishes), by reason, since start',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      for (const [reason, count] of realtimeRefused()) this.set({ reason }, count);
    },
  });

  if (imageCounts) {
    // Gauges set from the service's own counters at scrape time; hit rate = hits / (hits + misses).
    const imageGauge = (name: string, help: string, pick: (c: ImageCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(pick(imageCounts()));
        },
      });
    imageGauge(
      'plinth_storage_image_cache_hits_total',
      'Transformed images answered from the variant cache, since start',
      (c) => c.hits,
    );
    imageGauge(
      'plinth_storage_image_cache_misses_total',
      'Transformed images not in the variant cache (transformed, or joined a transformation in progress), since start',
      (c) => c.misses,
    );
    imageGauge(
      'plinth_storage_image_cache_evictions_total',
      'Variants evicted (least recently used first) to keep the cache under STORAGE_IMAGE_CACHE_MAX_BYTES, since start',
      (c) => c.evictions,
    );
    imageGauge(
      'plinth_storage_image_transforms_refused_total',
      'Image transformations refused with 503 because the queue was full, since start',
      (c) => c.refused,
    );
    imageGauge('plinth_storage_image_transforms_running', 'Image transformations running now', (c) => c.running);
    imageGauge(
      'plinth_storage_image_transforms_waiting',
      'Image transformations waiting for a turn now',
      (c) => c.waiting,
    );
  }

  return {
    registry,
    observeRequest(route, method, status, seconds, chosenByFunction = false) {
      requests.observe(requestLabels(route, method, status, chosenByFunction), seconds);
    },
    observeInvocation(status) {
      invocations.inc();
      if (status >= 500) invocationErrors.inc();
    },
  };
}
