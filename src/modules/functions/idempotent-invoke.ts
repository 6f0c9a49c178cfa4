// A function call with an Idempotency-Key: the key is claimed first, the call runs once with its
// body and answer held in memory (not streamed), and the answer (status, safe headers, a body up
// to STORED_BODY_MAX) is stored, so that a retry with the same key answers it instead of calling
// the function again. Without a key, calls stream as usual (runtime-proxy.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Agent, request as callRuntime } from 'undici';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { keyedRequest, type Idempotency, type StoredOutcome } from '../idempotency/index.js';
import { forwardable } from './runtime-proxy.js';

/** The largest answer body kept for a retry; a larger answer is sent once and its key given up. */
export const STORED_BODY_MAX = 1024 * 1024;

/** Headers of the function's answer that are replayed: content description, never cookies. */
const REPLAYED_HEADERS = new Set([
  'content-type',
  'content-language',
  'content-encoding',
  'content-disposition',
  'cache-control',
  'location',
  'etag',
  'last-modified',
]);

export interface KeyedCall {
  slug: string;
  key: string;
  principal: Principal | null;
  runtime: { port: number; socketPath: string | null };
  /** The headers sent to the runtime, as name, value pairs. */
  headers: string[];
  query: string;
  maxBodyBytes: number;
  timeoutMs: number;
}

async function readBody(request: FastifyRequest, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const send = (reply: FastifyReply, outcome: StoredOutcome) =>
  reply
    .code(outcome.status)
    .headers(outcome.headers)
    .send(outcome.body ?? '');

/** Runs the call once per key (see the file's header) and answers it. */
export async function invokeOnce(
  idempotency: Idempotency,
  call: KeyedCall,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const body =
    request.method === 'GET' || request.method === 'HEAD'
      ? Buffer.alloc(0)
      : await readBody(request, call.maxBodyBytes);
  const keyed = keyedRequest(call.principal ?? { kind: 'anon' }, `functions:${call.slug}`, call.key, [
    request.method,
    call.query,
    body.toString('base64'),
  ]);
  // A claim older than the call could run was left by a server that stopped mid-call.
  const replay = await idempotency.claim(keyed, call.timeoutMs + 10_000);
  if (replay) return send(reply, replay);

  const agent = new Agent(call.runtime.socketPath ? { connect: { socketPath: call.runtime.socketPath } } : {});
  let outcome: StoredOutcome;
  try {
    const headers: Record<string, string> = {};
    for (let i = 0; i < call.headers.length; i += 2) {
      const name = call.headers[i]!;
      if (name !== 'content-length') headers[name] = call.headers[i + 1]!;
    }
    const answer = await callRuntime(`http://127.0.0.1:${call.runtime.port}/${call.slug}${call.query}`, {
      method: request.method as 'POST',
      headers,
      body: body.length > 0 ? body : undefined,
      dispatcher: agent,
      headersTimeout: call.timeoutMs + 5_000,
      bodyTimeout: call.timeoutMs + 5_000,
    });
    const answered = Buffer.from(await answer.body.arrayBuffer());
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (REPLAYED_HEADERS.has(name) && forwardable(name) && typeof value === 'string') kept[name] = value;
    }
    outcome = { status: answer.statusCode, headers: kept, body: answered };
  } catch (cause) {
    await idempotency.release(keyed);
    throw new AppError('UPSTREAM_FAILURE', 'The function runtime could not be reached.', { cause });
  } finally {
    void agent.close();
  }
  if (outcome.body && outcome.body.length > STORED_BODY_MAX) await idempotency.release(keyed);
  else await idempotency.complete(keyed, outcome);
  return send(reply, outcome);
}
