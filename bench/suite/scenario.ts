// What a scenario is: its context (the servers, the user, the fixtures), its target and its outcome.
import type { BenchUser } from '../lib/fixtures.js';
import type { Measurement, MeasureSettings } from '../lib/measure.js';

export interface BenchContext extends MeasureSettings {
  plinthUrl: string;
  limitUrl: string;
  /** Scratch directory for token files. */
  dir: string;
  user: BenchUser;
  /** Users the refresh scenario's sessions are spread over. */
  userIds: string[];
  /** The user's stored argon2 hash. */
  storedHash: string;
  refreshTtlSeconds: number;
  /** Ids of the rows of the records table (all the user's). */
  recordIds: number[];
  apiKey: string;
  anonKey: string;
  /** The Deno runtime Plinth supervises, for invoking functions without Plinth in front. */
  functionsRuntime: { url: string; token: string };
}

/** `report`: measured and shown with its ratio, no target. */
export type Target = { kind: 'ratio'; min: number } | { kind: 'rps'; min: number } | { kind: 'report' };

export interface ScenarioOutcome {
  name: string;
  request: string;
  connections: number;
  plinth: Measurement;
  limit: Measurement;
  limitDoes: string;
  /**
   * The user-view limit (architecture.md, Benchmarks), where the scenario has one; ratio targets
   * are then judged against it. It may be the `limit` measurement itself, when Plinth's statement
   * is already the plainest hand-written one.
   */
  userView?: { measurement: Measurement; does: string };
  target: Target;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome>;
}
