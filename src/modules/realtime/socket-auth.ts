// The socket handshake: the `auth` object the client sends ({token} with an access token, the
// anon key or the API key; or {apiKey}) classified as the platform does, into a principal or
// the refusal text the client surfaces as connect_error's message.
import type { MaybePrincipal, Principal } from '../../core/principal.js';

export type CredentialResolver = (credential: string) => MaybePrincipal;

export type HandshakeResult = { ok: true; principal: Principal; credential: string } | { ok: false; message: string };

const attempt = async (resolve: CredentialResolver, credential: string, refusal: string): Promise<HandshakeResult> => {
  try {
    return { ok: true, principal: await resolve(credential), credential };
  } catch {
    return { ok: false, message: refusal };
  }
};

export async function authenticateHandshake(auth: unknown, resolve: CredentialResolver): Promise<HandshakeResult> {
  const fields = (typeof auth === 'object' && auth !== null ? auth : {}) as { apiKey?: unknown; token?: unknown };
  if (fields.apiKey !== undefined) {
    if (typeof fields.apiKey !== 'string' || !fields.apiKey.startsWith('ik_')) {
      return { ok: false, message: 'Invalid API key' };
    }
    return attempt(resolve, fields.apiKey, 'Invalid API key');
  }
  const token = fields.token;
  if (typeof token !== 'string' || token.length === 0) return { ok: false, message: 'No authentication provided' };
  if (token.startsWith('anon_')) return attempt(resolve, token, 'Invalid anon key');
  // The admin client sends the API key as its token: accepted, as the same identity as {apiKey}.
  if (token.startsWith('ik_')) return attempt(resolve, token, 'Invalid API key');
  return attempt(resolve, token, 'Invalid token');
}
