// The id of a request: the caller's X-Request-Id when it is a sane token, else a fresh UUID. Used
// by Fastify (genReqId) and by the refusals answered before Fastify sees a request (admission.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
