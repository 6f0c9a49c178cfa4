// Who calls a Supabase REST route of realtime: the principal Plinth resolved from Authorization
// (or x-api-key), else the `apikey` header, which is all supabase-js sends when no access token is
// set. A bad credential is refused as Plinth's access control refuses it. (Minimal stand-in for
// the shared Supabase key helper; the route is declared public so this runs.)
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { CredentialResolverOf } from './realtime.plugin.js';

export async function supabaseCaller(request: FastifyRequest, resolve: CredentialResolverOf): Promise<Principal> {
  if (request.principal) return request.principal;
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHORIZED', 'The Authorization header must be "Bearer <credential>".');
    return await resolve(match[1]);
  }
  const apikey = request.headers.apikey;
  if (typeof apikey === 'string' && apikey.length > 0) return await resolve(apikey);
  throw new AppError('UNAUTHORIZED', undefined, {
    nextActions: 'Send the anon key or the API key as the apikey header, or an access token as Authorization: Bearer.',
  });
}
