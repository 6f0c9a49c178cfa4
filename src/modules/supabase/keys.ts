// Supabase's credentials on the Supabase prefixes: the project key in the `apikey` header (the anon
// key as Supabase's anon key, the API key as its service_role key) and the caller in
// `Authorization: Bearer` (a user's access token, or the key again when signed out). app.ts hands
// it to the access control (http/principal.ts), which resolves every request's caller.
import { AppError } from '../../core/errors.js';
import type { MaybePrincipal, Principal } from '../../core/principal.js';
import type { ProjectKeyHeader } from '../../http/principal.js';

/** The paths supabase-js calls; the `apikey` header counts only there. */
export const SUPABASE_PREFIXES = ['/rest/v1/', '/auth/v1/', '/storage/v1/', '/functions/v1/', '/realtime/v1/'];

export function isSupabasePath(url: string): boolean {
  for (const prefix of SUPABASE_PREFIXES) if (url.startsWith(prefix)) return true;
  return false;
}

/**
 * What the Supabase clients read from an answer, so a browser page may see it on these prefixes:
 * PostgREST's headers (postgrest-js counts from Content-Range), GoTrue's (auth-js pages by
 * X-Total-Count and Link, and reads error codes only when it sees X-Supabase-Api-Version) and
 * functions-js's X-Relay-Error.
 */
export const supabaseExposedHeaders = {
  appliesTo: isSupabasePath,
  headers:
    'Range-Unit, Content-Location, Location, Content-Profile, X-Total-Count, Link, X-Supabase-Api-Version, X-Relay-Error',
};

/** The two project keys' shapes: an API key (service_role) and an anon key. */
const PROJECT_KEY = /^(?:ik_|anon_)[0-9a-f]{64}$/;

/** As Supabase's gateway answers a key it does not know. */
export const invalidApiKey = () =>
  new AppError('UNAUTHORIZED', 'Invalid API key', {
    nextActions: 'Send the anon key or the API key (service_role) of this server in the apikey header.',
    fields: { hint: 'Double check your anon or service_role API key.' },
  });

/**
 * The principal the `apikey` header stands for: the anon principal or the API key's. Anything else
 * (an unknown or expired key, an access token, garbage) is a 401, whatever Authorization holds.
 */
export function projectKeyPrincipal(
  apikey: string,
  resolveCredential: (credential: string) => MaybePrincipal,
): Principal {
  if (!PROJECT_KEY.test(apikey)) throw invalidApiKey();
  let principal: MaybePrincipal;
  try {
    principal = resolveCredential(apikey);
  } catch {
    throw invalidApiKey();
  }
  // Keys resolve synchronously (only admin access tokens may wait for a session lookup).
  if (principal instanceof Promise) throw invalidApiKey();
  return principal;
}

/** Supabase's `apikey` header, read on the Supabase prefixes only. */
export const supabaseApiKeyHeader: ProjectKeyHeader = {
  name: 'apikey',
  appliesTo: isSupabasePath,
  principalOf: projectKeyPrincipal,
};
