// FUNCTIONS_ORIGIN: function answers on a host of their own. When it is set, /functions/* is
// served only on that host (but to a page's fetch, which renders nothing), and that host serves
// nothing else (not the API, not the dashboard), so nothing a function sends ever runs as the
// dashboard's origin, sandboxed or not.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';

const FUNCTIONS_PATH = '/functions/';

const isFunctionsPath = (request: FastifyRequest) => request.url.startsWith(FUNCTIONS_PATH);

/**
 * A fetch() or XMLHttpRequest of a page (the dashboard's Invoke panel): its answer is data handed
 * to a script, never rendered as a document of this origin, so the API host may give it.
 */
const isScriptFetch = (request: FastifyRequest) => request.headers['sec-fetch-dest'] === 'empty';

export function registerFunctionsOrigin(app: FastifyInstance, functionsOrigin: string | undefined): void {
  if (functionsOrigin === undefined) return;
  const functionsHost = new URL(functionsOrigin).host;
  app.addHook('onRequest', async (request) => {
    const onFunctionsHost = request.host === functionsHost;
    const functionsPath = isFunctionsPath(request);
    if (onFunctionsHost === functionsPath || (functionsPath && isScriptFetch(request))) return;
    throw onFunctionsHost
      ? new AppError('NOT_FOUND', 'This host serves functions only.', {
          nextActions: 'Call the API and the dashboard at their own address; functions are at /functions/{slug} here.',
        })
      : new AppError('NOT_FOUND', 'Functions are not served on this host.', {
          nextActions: `Invoke functions at ${functionsOrigin}/functions/{slug} (FUNCTIONS_ORIGIN).`,
        });
  });
}
