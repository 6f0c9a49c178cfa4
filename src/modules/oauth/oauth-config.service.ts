// Admin settings of OAuth providers, built-in and custom: client secrets sealed with the keyring
// and never returned (a view says only whether one is stored); and the names of the configured
// providers, which clients list as sign-in buttons.
import type { z } from 'zod';
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './oauth-config.repo.js';
import type {
  customConfigCreateSchema,
  CustomConfigInput,
  oauthConfigCreateSchema,
  OAuthConfigInput,
} from './oauth.schemas.js';
import type { BuiltInProvider } from './providers.js';

const viewOf = ({ clientSecretCiphertext, ...rest }: repo.StoredOAuthConfig) => ({
  ...rest,
  hasClientSecret: clientSecretCiphertext !== null,
});
const customViewOf = ({ clientSecretCiphertext, ...rest }: repo.StoredCustomConfig) => ({
  ...rest,
  hasClientSecret: clientSecretCiphertext.length > 0,
});

const notConfigured = (what: string) =>
  new AppError('AUTH_OAUTH_CONFIG_NOT_FOUND', `${what} is not configured.`, {
    nextActions: 'Create it first with POST on the configs collection.',
  });

/** Built-in provider names and custom provider keys the admin configured. */
export async function configuredProviderNames(db: Queryable): Promise<{ builtIn: string[]; custom: string[] }> {
  const [builtIn, custom] = await Promise.all([repo.listOAuthConfigs(db), repo.listCustomConfigs(db)]);
  return { builtIn: builtIn.map((c) => c.provider), custom: custom.map((c) => c.key) };
}

export function createOAuthConfigService(deps: Pick<Deps, 'sql' | 'keyring' | 'clock'>) {
  /** undefined keeps the stored secret, null removes it, a string replaces it (sealed). */
  const sealSecret = (secret: string | null | undefined) =>
    secret === undefined ? undefined : secret === null ? null : deps.keyring.seal(secret);

  return {
    async list() {
      const rows = await repo.listOAuthConfigs(deps.sql);
      return { data: rows.map(viewOf), count: rows.length };
    },
    async create({ provider, clientSecret, ...rest }: z.output<typeof oauthConfigCreateSchema>) {
      const row = await repo.insertOAuthConfig(deps.sql, provider, {
        ...rest,
        clientSecretCiphertext: sealSecret(clientSecret),
      });
      if (!row) {
        throw new AppError('AUTH_OAUTH_CONFIG_EXISTS', `${provider} is already configured.`, {
          nextActions: `Update it with PUT /api/auth/oauth/${provider}/config.`,
        });
      }
      return viewOf(row);
    },
    async find(provider: BuiltInProvider) {
      const row = await repo.findOAuthConfig(deps.sql, provider);
      if (!row) throw notConfigured(provider);
      return viewOf(row);
    },
    async update(provider: BuiltInProvider, { clientSecret, ...rest }: OAuthConfigInput) {
      const changes = { ...rest, clientSecretCiphertext: sealSecret(clientSecret) };
      const row = await repo.updateOAuthConfig(deps.sql, provider, changes, deps.clock.now());
      if (!row) throw notConfigured(provider);
      return viewOf(row);
    },
    async remove(provider: BuiltInProvider) {
      if (!(await repo.deleteOAuthConfig(deps.sql, provider))) throw notConfigured(provider);
      return { success: true, message: `${provider} OAuth configuration deleted.` };
    },

    async listCustom() {
      const rows = await repo.listCustomConfigs(deps.sql);
      return { data: rows.map(customViewOf), count: rows.length };
    },
    async createCustom({ key, clientSecret, ...rest }: z.output<typeof customConfigCreateSchema>) {
      const row = await repo.insertCustomConfig(deps.sql, key, {
        ...rest,
        clientSecretCiphertext: deps.keyring.seal(clientSecret),
      });
      if (!row) {
        throw new AppError('AUTH_OAUTH_CONFIG_EXISTS', `A custom provider with key ${key} exists already.`, {
          nextActions: `Update it with PUT /api/auth/oauth/custom/${key}/config.`,
        });
      }
      return customViewOf(row);
    },
    async findCustom(key: string) {
      const row = await repo.findCustomConfig(deps.sql, key);
      if (!row) throw notConfigured(`Custom provider ${key}`);
      return customViewOf(row);
    },
    async updateCustom(key: string, { clientSecret, ...rest }: CustomConfigInput) {
      const changes = {
        ...rest,
        clientSecretCiphertext: clientSecret === undefined ? undefined : deps.keyring.seal(clientSecret),
      };
      const row = await repo.updateCustomConfig(deps.sql, key, changes, deps.clock.now());
      if (!row) throw notConfigured(`Custom provider ${key}`);
      return customViewOf(row);
    },
    async removeCustom(key: string) {
      if (!(await repo.deleteCustomConfig(deps.sql, key))) throw notConfigured(`Custom provider ${key}`);
      return { success: true, message: `Custom provider ${key} deleted.` };
    },
  };
}

export type OAuthConfigService = ReturnType<typeof createOAuthConfigService>;
