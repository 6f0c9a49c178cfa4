// Functions: a trivial function invoked through Plinth (credential check, in-memory slug table,
// streamed proxy) against the same function invoked directly on the Deno runtime, same run.
import type { BenchContext, Scenario, ScenarioOutcome } from './scenario.js';
import { measureLoad, type SpecFor } from '../lib/measure.js';

const CONNECTIONS = 32;
export const TRIVIAL_FUNCTION = 'bench-hello';
const CODE = 'export default () => new Response("hello");';

/** Deploys the function through the management API and checks both paths answer it. */
export async function deployTrivialFunction(
  ctx: Pick<BenchContext, 'apiKey' | 'anonKey' | 'plinthUrl' | 'functionsRuntime'>,
): Promise<void> {
  const headers = { 'x-api-key': ctx.apiKey };
  await fetch(`${ctx.plinthUrl}/api/functions/${TRIVIAL_FUNCTION}`, { method: 'DELETE', headers });
  const res = await fetch(`${ctx.plinthUrl}/api/functions`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: TRIVIAL_FUNCTION, code: CODE }),
  });
  if (res.status !== 201) throw new Error(`deploying ${TRIVIAL_FUNCTION}: ${res.status} ${await res.text()}`);
  for (const [side, url, h] of [
    ['Plinth', `${ctx.plinthUrl}/functions/${TRIVIAL_FUNCTION}`, { authorization: `Bearer ${ctx.anonKey}` }],
    [
      'the runtime',
      `${ctx.functionsRuntime.url}/${TRIVIAL_FUNCTION}`,
      { 'x-plinth-runtime-token': ctx.functionsRuntime.token },
    ],
  ] as const) {
    const answer = await fetch(url, { headers: h });
    const text = await answer.text();
    if (answer.status !== 200 || text !== 'hello')
      throw new Error(`${side} answered ${answer.status} ${text.slice(0, 200)}`);
  }
}

/** The same function through Plinth and directly on the runtime, at `connections` at once. */
function invokeScenario(name: string, connections: number, target: ScenarioOutcome['target']): Scenario {
  return {
    name,
    async run(ctx) {
      await deployTrivialFunction(ctx);
      const spec =
        (url: string, path: string, headers: Record<string, string>): SpecFor =>
        async (seconds) => ({
          url,
          method: 'GET',
          path,
          headers,
          connections,
          seconds,
          expectStatus: 200,
        });
      return {
        name,
        request: `GET /functions/${TRIVIAL_FUNCTION} (anon key; the function answers "hello"); every answer must be 200`,
        connections,
        plinth: await measureLoad(
          spec(ctx.plinthUrl, `/functions/${TRIVIAL_FUNCTION}`, { authorization: `Bearer ${ctx.anonKey}` }),
          ctx,
        ),
        limit: await measureLoad(
          spec(ctx.functionsRuntime.url, `/${TRIVIAL_FUNCTION}`, {
            'x-plinth-runtime-token': ctx.functionsRuntime.token,
          }),
          ctx,
        ),
        limitDoes:
          'the same function invoked directly on the Deno runtime Plinth supervises (GET /<slug> with the runtime token): the runtime alone, without Plinth in front',
        target,
      };
    },
  };
}

/** Throughput: ≥ 80% of the runtime's own. */
export const functionsInvoke = invokeScenario('functions-invoke', CONNECTIONS, { kind: 'ratio', min: 0.8 });
/** Latency: one request at a time, so p50 − the runtime's p50 is Plinth's overhead (target ≤ 1 ms). */
export const functionsLatency = invokeScenario('functions-latency', 1, { kind: 'report' });
