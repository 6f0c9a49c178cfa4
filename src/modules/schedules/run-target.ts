// One run of a schedule: the HTTP request to its target — the function runtime directly for a
// function (as the invocation route would forward it), or a URL (this API's or elsewhere) — with the stored
// method, the resolved headers and the JSON body, bounded by the run's timeout. A URL goes
// through the outbound address policy (a stored URL outside the allowed origins is refused, nothing
// sent). Answers the outcome the history records; it never throws.
import { OutboundRefused } from '../../core/address-policy.js';
import type { Queryable } from '../../core/db.js';
import { outboundFetcher } from '../../platform/outbound-http.js';
import type { RuntimeSupervisor } from '../../platform/functions-runtime/supervisor.js';
import { isActiveFunction } from '../functions/index.js';
import type { RunOutcome } from './schedules.repo.js';

/** Characters of the answer's body kept in the history. */
export const EXCERPT_CHARS = 1000;

export interface RunRequest {
  functionSlug: string | null;
  functionUrl: string | null;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  /** Aborted when the server stops (the run is then recorded as failed). */
  stop: AbortSignal;
}

export interface RunTargetContext {
  sql: Queryable;
  runtime: RuntimeSupervisor;
  apiBaseUrl: string;
  /** Origins a URL target may reach on a private address (allowedOutboundOrigins). */
  allowedOrigins: readonly string[];
}

/** The first characters of a body, without reading more of it than needed. */
async function excerptOf(res: Response): Promise<string | null> {
  if (!res.body) return null;
  const decoder = new TextDecoder();
  let text = '';
  const reader = res.body.getReader();
  try {
    while (text.length < EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text.length === 0 ? null : text.slice(0, EXCERPT_CHARS);
}

/** Where the request goes and the headers only Plinth sets. */
async function destination(
  ctx: RunTargetContext,
  run: RunRequest,
): Promise<
  { url: string; extra: Record<string, string>; send: (url: string, init: RequestInit) => Promise<Response> } | string
> {
  if (run.functionUrl !== null) return { url: run.functionUrl, extra: {}, send: outboundFetcher(ctx.allowedOrigins) };
  const slug = run.functionSlug!;
  if (!(await isActiveFunction(ctx.sql, slug))) return `Function "${slug}" not found or not active`;
  const port = ctx.runtime.status === 'running' ? ctx.runtime.port : null;
  if (port === null) return 'The function runtime is not running';
  return {
    url: `http://127.0.0.1:${port}/${slug}`,
    send: fetch,
    extra: {
      'x-plinth-runtime-token': ctx.runtime.token,
      'x-plinth-url': `${ctx.apiBaseUrl}/functions/${slug}`,
    },
  };
}

export async function runTarget(ctx: RunTargetContext, run: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = await destination(ctx, run);
  if (typeof target === 'string')
    return { status: 'failed', statusCode: 404, durationMs: elapsed(), message: target, excerpt: null };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(run.headers))
    if (!name.toLowerCase().startsWith('x-plinth-')) headers[name] = value;
  const timeout = AbortSignal.timeout(run.timeoutMs);
  try {
    const res = await target.send(target.url, {
      method: run.method,
      headers: { ...headers, 'content-type': 'application/json', ...target.extra },
      // As the reference does: the JSON body (or {}) goes with every method but GET.
      body: run.method === 'GET' ? undefined : JSON.stringify(run.body ?? {}),
      signal: AbortSignal.any([timeout, run.stop]),
      redirect: 'manual',
    });
    const excerpt = await excerptOf(res);
    return {
      status: res.ok ? 'success' : 'failed',
      statusCode: res.status,
      durationMs: elapsed(),
      message: res.ok ? 'Success' : `HTTP ${res.status}`,
      excerpt,
    };
  } catch (err) {
    if (timeout.aborted)
      return {
        status: 'timed_out',
        statusCode: 504,
        durationMs: elapsed(),
        message: `Timed out after ${run.timeoutMs} ms`,
        excerpt: null,
      };
    const message = run.stop.aborted
      ? 'Stopped: the server shut down during the run'
      : err instanceof OutboundRefused
        ? `Refused by the outbound address policy: ${err.message}`
        : `Request failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
    return { status: 'failed', statusCode: 500, durationMs: elapsed(), message, excerpt: null };
  }
}
