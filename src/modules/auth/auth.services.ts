// Builds the authentication services once per app, from the app's dependencies.
import type { Deps } from '../../deps.js';
import { createAdminAuthService } from './admin-auth.service.js';
import { createSessionService } from './sessions.service.js';
import { createUserService } from './users.service.js';

export type AuthServices = ReturnType<typeof createAuthServices>;

export function createAuthServices(deps: Deps) {
  const sessions = createSessionService(deps);
  return {
    sessions,
    users: createUserService(deps, sessions),
    admin: createAdminAuthService(deps, sessions),
  };
}
