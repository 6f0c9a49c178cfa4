// The OAuth providers the admin configured, as clients list them: built-in provider names and
// custom provider keys (for sign-in buttons in the public auth configuration).
import type { Queryable } from '../../core/db.js';
import { listCustomConfigs, listOAuthConfigs } from './oauth-config.repo.js';

export async function configuredProviderNames(db: Queryable): Promise<{ builtIn: string[]; custom: string[] }> {
  const [builtIn, custom] = await Promise.all([listOAuthConfigs(db), listCustomConfigs(db)]);
  return { builtIn: builtIn.map((c) => c.provider), custom: custom.map((c) => c.key) };
}
