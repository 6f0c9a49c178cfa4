// BENCH_ENVELOPES=1: the records scenarios measured on Plinth and on every transaction envelope the
// limit server knows (bench/lib/limit-records.ts), one after another in the same run, to show where
// the time between Plinth and its limit goes. Off by default: it triples the records runs.
import { ENVELOPES, ENVELOPE_TEXT, LIMIT_ENVELOPE, envelopePrefix, type EnvelopeName } from '../lib/limit-records.js';
import { measureLoad, type Measurement } from '../lib/measure.js';
import type { BenchContext } from './scenario.js';
import { RECORDS_SCENARIOS, checkRecords, recordsSpec, type RecordsScenario } from './scenarios.js';

export interface EnvelopeRun {
  scenario: RecordsScenario;
  /** 'plinth', or the limit server with that envelope. */
  side: 'plinth' | EnvelopeName;
  /** Absent when the run could not be made (`error` says why). */
  measurement?: Measurement;
  error?: string;
}

export interface EnvelopeComparison {
  runs: EnvelopeRun[];
  /** What each envelope does. */
  text: Record<EnvelopeName, string>;
  limit: EnvelopeName;
}

export async function compareEnvelopes(ctx: BenchContext): Promise<EnvelopeComparison> {
  const runs: EnvelopeRun[] = [];
  for (const scenario of RECORDS_SCENARIOS) {
    for (const side of ['plinth', ...Object.keys(ENVELOPES)] as EnvelopeRun['side'][]) {
      console.log(`  ${scenario}: ${side}`);
      try {
        if (side === 'plinth') {
          runs.push({ scenario, side, measurement: await measureLoad(recordsSpec(ctx, scenario, ctx.plinthUrl), ctx) });
        } else {
          await checkRecords(ctx, scenario, envelopePrefix(side));
          runs.push({
            scenario,
            side,
            measurement: await measureLoad(recordsSpec(ctx, scenario, ctx.limitUrl, envelopePrefix(side)), ctx),
          });
        }
      } catch (err) {
        runs.push({ scenario, side, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return { runs, text: ENVELOPE_TEXT, limit: LIMIT_ENVELOPE };
}
