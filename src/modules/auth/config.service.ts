// The authentication configuration: the public settings clients read (with the OAuth providers the
// admin configured), the full row for the admin, and its updates. `readAuthConfig` is also what
// the sign-in flows of this and other modules check (redirects, sign-up switch).
import type { Queryable } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import * as repo from './config.repo.js';

/** The configuration row; `db` may be a transaction of the caller's. */
export const readAuthConfig = (db: Queryable) => repo.readAuthConfig(db);

/** The OAuth providers the admin configured (built-in names, custom keys): the OAuth module answers. */
export type OAuthProviderNames = () => Promise<{ builtIn: string[]; custom: string[] }>;

export function createAuthConfigService(deps: Pick<Deps, 'sql' | 'clock'>, oauthProviders: OAuthProviderNames) {
  return {
    async publicConfig() {
      const [{ id: _id, createdAt: _c, updatedAt: _u, allowedRedirectUrls: _r, ...config }, providers] =
        await Promise.all([repo.readAuthConfig(deps.sql), oauthProviders()]);
      // Clients show sign-in buttons for what the admin configured: built-in names and custom keys.
      return { ...config, oAuthProviders: providers.builtIn, customOAuthProviders: providers.custom };
    },
    config: () => repo.readAuthConfig(deps.sql),
    update: (changes: repo.AuthConfigChanges) => repo.updateAuthConfig(deps.sql, changes, deps.clock.now()),
  };
}

export type AuthConfigService = ReturnType<typeof createAuthConfigService>;
