// The JSON body parser of every route: Fastify's own (prototype poisoning refused), behind a
// nesting-depth check on the text, so no body nested deeper than MAX_JSON_DEPTH reaches a handler.
// An empty body on a route that takes none is no body, whatever its Content-Type says.
import type { FastifyRequest } from 'fastify';
import type { AnyFastifyInstance } from './any-fastify.js';
import { jsonTooDeepError, textTooDeepAt } from '../core/json-guard.js';

export interface JsonBodyOptions {
  maxDepth: number;
  /** An empty body is no body (undefined) rather than a 400: PostgREST clients send one. */
  emptyIsUndefined?: boolean;
  /** The error for a body nested too deep under `field` (default: 400 VALIDATION_ERROR, the spec's shape). */
  tooDeep?: (maxDepth: number, field: string) => Error;
}

/**
 * Registers the `application/json` parser in `app`'s scope (and the scopes it registers after).
 * The depth check runs on the text before JSON.parse: one pass, no recursion, nothing allocated.
 */
export function parseJsonBodies(app: AnyFastifyInstance, options: JsonBodyOptions): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const tooDeep = options.tooDeep ?? ((max: number, field: string) => jsonTooDeepError(max, 'The request body', field));
  // A scope inherits its parent's parser, which Fastify will not let it replace: remove it first.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body, done) => {
    const text = body as string;
    if (text === '' && (options.emptyIsUndefined || !request.routeOptions.schema?.body)) return done(null, undefined);
    const tooDeepAt = textTooDeepAt(text, options.maxDepth);
    if (tooDeepAt !== undefined) return done(tooDeep(options.maxDepth, tooDeepAt), undefined);
    parseJson(request, text, done);
  });
}
