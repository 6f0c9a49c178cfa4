// Deny by default: every route carries an access level, declared on the route (config.access) or
// by the access group it is registered in; a route with neither makes startup fail, naming it.
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import type { AccessLevel } from './principal.js';

// Set on an encapsulated scope; child scopes inherit it through their prototype, siblings never see it.
const GROUP_ACCESS = Symbol('plinth.accessGroup');
type Scope = FastifyInstance & { [GROUP_ACCESS]?: AccessLevel };

/**
 * Refuses every route registered after this call that has no access level, so forgetting one is
 * caught when the app is built rather than serving the route to anyone. Call it before any route.
 */
export function requireRouteAccess(app: FastifyInstance): void {
  app.addHook('onRoute', function (this: Scope, route: RouteOptions) {
    const access = route.config?.access ?? this[GROUP_ACCESS];
    if (access === undefined) {
      const method = Array.isArray(route.method) ? route.method.join(',') : route.method;
      throw new Error(
        `${method} ${route.url} declares no access level: set config.access ('public', 'client', 'token' or 'admin') or register it in an accessGroup.`,
      );
    }
    route.config = { ...route.config, access };
  });
}

/**
 * A plugin whose routes (its own and those of plugins it registers, e.g. a third party's) default
 * to `access`. A route's own config.access still wins.
 */
export function accessGroup(access: AccessLevel, plugin: FastifyPluginAsync): FastifyPluginAsync {
  return async (scope) => {
    (scope as Scope)[GROUP_ACCESS] = access;
    await scope.register(plugin);
  };
}
