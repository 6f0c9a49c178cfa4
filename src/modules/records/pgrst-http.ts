// The HTTP side shared by records and RPC routes: bodies as PostgREST clients send them, the
// request parts the pipeline reads, and the answer it gives.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PgrstHeaders, PgrstResponse } from './pgrst-request.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * PostgREST clients send `Content-Type: application/json` on requests without a body (deletes,
 * argument-less calls); an empty body is then no body. (Scoped to the plugin that calls this.)
 */
export function acceptEmptyJsonBodies(app: FastifyInstance<any, any, any, any, any>): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });
}

/** The raw query pairs (repeats kept, in order) and the headers that shape the answer. */
export function pgrstParts(request: FastifyRequest): { query: [string, string][]; headers: PgrstHeaders } {
  const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  return {
    query: [...new URLSearchParams(search)],
    headers: {
      prefer: header(request.headers.prefer),
      accept: header(request.headers.accept),
      range: header(request.headers.range),
      acceptProfile: header(request.headers['accept-profile']),
      contentProfile: header(request.headers['content-profile']),
    },
  };
}

export function sendPgrst(reply: FastifyReply, response: PgrstResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  return response.body === undefined ? reply.send() : reply.send(response.body);
}
