// Registers the functions routes: management (admin) and invocation at /functions/{slug}.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { functionsRoutes } from './functions.routes.js';
import { createFunctionsService } from './functions.service.js';
import { invokeRoutes } from './invoke.routes.js';

export function functionsPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    deps.functions.setLogger((level, message, extra) => app.log[level](extra ?? {}, message));
    await app.register(functionsRoutes(deps, createFunctionsService(deps)));
    await app.register(invokeRoutes(deps));
  };
}
