// The door's adaptive concurrency limit (http/admission.ts): how many requests may be in flight
// before new ones are refused. An accepted request's latency is its wait (for a pool connection,
// for the event loop) plus its service time, and the wait grows with the requests in flight ahead
// of it; so while requests are being refused (demand is past the limit) and latency has risen
// past `tolerance` × its baseline, the limit shrinks in proportion (a gradient, as Netflix's
// concurrency-limits or Envoy's adaptive concurrency), down to `min`; while latency is within the
// tolerance it grows back towards `max`. It never shrinks while nothing is refused: clients that
// wait for their answers (a closed loop, however saturating) are not turned away for being many.
//
// Latency is measured per window (`windowMs`, at least MIN_SAMPLES answers) as the window's median.
// The baseline is the lowest median of a window without refusals in the last one to two
// `baselineMs` periods; windows with refusals never move it, so sustained overload cannot raise
// it and the limit cannot ratchet up with the latency it lets through.

export interface ConcurrencyLimitOptions {
  /** The limit never shrinks below it. */
  min: number;
  /** The limit never grows past it, and starts there. */
  max: number;
  /** Latency tolerated, as a multiple of the baseline, before a refusing limit shrinks (≥ 1). */
  tolerance: number;
  /** The limit moves at most once a window (ms). */
  windowMs: number;
  /** How long a baseline is remembered when nothing lower is seen (ms). */
  baselineMs: number;
  /** Milliseconds on any clock that does not go backwards by much (tests pass a manual one). */
  now(): number;
}

export interface ConcurrencyLimit {
  /** Requests allowed in flight now. */
  readonly limit: number;
  /** The baseline latency (ms), Infinity until a window without refusals has closed. */
  readonly baseline: number;
  /** A request was refused at capacity. */
  refused(): void;
  /** A request admitted at `startedAt` (a reading of `now()`) was answered or abandoned. */
  completed(startedAt: number): void;
}

/** A window closes only once it holds this many answers: a median of fewer is noise. */
export const MIN_SAMPLES = 5;
/** A shrink is at most by half per window; the baseline is taken as at least 1 ms. */
const MAX_SHRINK = 0.5;
const MIN_BASELINE_MS = 1;

export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { max, tolerance, windowMs, baselineMs, now } = options;
  const min = Math.min(options.min, max);
  let limit = max;
  let samples: number[] = [];
  let refusedInWindow = 0;
  let windowStart = now();
  // The baseline: lowest clean median in this period and the previous one.
  let periodStart = windowStart;
  let periodLowest = Number.POSITIVE_INFINITY;
  let previousLowest = Number.POSITIVE_INFINITY;
  /** Infinity while there is none yet. */
  const baseline = () => Math.max(MIN_BASELINE_MS, Math.min(periodLowest, previousLowest));

  const closeWindow = (at: number) => {
    const median = samples.sort((a, b) => a - b)[samples.length >> 1]!;
    const wasRefusing = refusedInWindow > 0;
    samples = [];
    refusedInWindow = 0;
    windowStart = at;
    if (at - periodStart >= baselineMs) {
      // A period without a clean window keeps the last baseline (sustained overload).
      if (Number.isFinite(periodLowest)) previousLowest = periodLowest;
      periodLowest = Number.POSITIVE_INFINITY;
      periodStart = at;
    }
    if (!wasRefusing) periodLowest = Math.min(periodLowest, median);
    const target = tolerance * baseline();
    if (!Number.isFinite(target)) return;
    if (median <= target) limit = Math.min(max, limit + Math.max(1, Math.sqrt(limit)));
    else if (wasRefusing) limit = Math.max(min, limit * Math.max(MAX_SHRINK, target / median));
  };

  return {
    get limit() {
      return Math.floor(limit);
    },
    get baseline() {
      return baseline();
    },
    refused() {
      refusedInWindow++;
    },
    completed(startedAt) {
      const at = now();
      samples.push(Math.max(0, at - startedAt));
      if (samples.length >= MIN_SAMPLES && at - windowStart >= windowMs) closeWindow(at);
    },
  };
}
