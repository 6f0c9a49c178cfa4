// Registers the functions routes: management (admin) and invocation at /functions/{slug}, over the
// functions host (this server's table of active functions, in step with the runtime), which
// listens for changes for the app's lifetime.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from '../secrets/index.js';
import { createFunctionsHost } from './functions-host.js';
import { functionsRoutes } from './functions.routes.js';
import { createFunctionsService } from './functions.service.js';
import { invokeRoutes } from './invoke.routes.js';

export function functionsPlugin(deps: KeyedDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const host = await createFunctionsHost(deps, (level, message, extra) => app.log[level](extra ?? {}, message));
    app.addHook('onClose', () => host.close());
    await app.register(functionsRoutes(createFunctionsService(deps, host)));
    await app.register(invokeRoutes(deps, host));
  };
}
