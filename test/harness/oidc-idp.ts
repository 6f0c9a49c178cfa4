// A real OpenID Connect provider (oidc-provider) on loopback http, with programmatic login/consent, so
// OAuth tests drive the whole authorization-code flow (real codes, client auth, RS256 ID tokens) with no browser.
import { generateKeyPair } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Provider, {
  interactionPolicy,
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  type InteractionResults,
  type JWK,
} from 'oidc-provider';

export interface IdpUser {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  picture?: string;
}

export interface IdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface AuthorizeOptions {
  /** Refuse instead of logging in: the IdP redirects to the callback with `error=access_denied`. */
  deny?: boolean;
}

export interface OidcIdp {
  /** `http://127.0.0.1:<port>`, no trailing slash; the `iss` of every ID token. */
  issuer: string;
  /** issuer + '/.well-known/openid-configuration' */
  discoveryUrl: string;
  /** The endpoints, as the discovery document gives them. */
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  jwksUrl: string;
  /** An account the IdP can log in as; adding the same `sub` again replaces it. */
  addUser(user: IdpUser): void;
  /**
   * A confidential client (client_secret_basic or client_secret_post, authorization_code, response_type
   * code, PKCE S256 accepted but not required). Rejects when oidc-provider finds the metadata invalid.
   */
  addClient(client: IdpClient): Promise<void>;
  /**
   * Plays a fresh browser (new cookie jar each call): GETs `authUrl`, logs in as `sub`, consents to what
   * was asked, follows redirects until one leaves the IdP, and returns that URL without requesting it.
   * An error redirect to the callback (e.g. `error=login_required` for prompt=none, or access_denied with
   * `deny`) is returned the same way. With response_mode=form_post, returns the form's action URL with the
   * posted fields as its query (POST `url.searchParams` as a form to `url.origin + url.pathname`).
   * Throws when the IdP answers with a page instead of a redirect (unknown client, unregistered
   * redirect_uri, ...), or when `sub` was never added (the IdP then denies access).
   */
  authorize(authUrl: string, sub: string, options?: AuthorizeOptions): Promise<URL>;
  /** The query of the last GET to the authorization endpoint, for asserting forwarded hints. */
  lastAuthorizationRequest(): URLSearchParams | undefined;
  /**
   * The next `count` (default 1) POSTs to the token endpoint fail at the HTTP level, before oidc-provider
   * sees them: status 500 `{"error":"server_error"}` unless told otherwise.
   */
  failNextTokenRequest(options?: { count?: number; status?: number; error?: string }): void;
  close(): Promise<void>;
}

interface StoredEntry {
  payload: AdapterPayload;
  expiresAt?: number;
}

const grantableModels = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

/** oidc-provider's bundled MemoryAdapter keeps one store per process; this one belongs to one IdP. */
class MemoryStore {
  readonly #entries = new Map<string, StoredEntry>();
  readonly #grants = new Map<string, Set<string>>();
  readonly #sessionUids = new Map<string, string>();
  readonly #userCodes = new Map<string, string>();

  #live(key: string | undefined): AdapterPayload | undefined {
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (!entry || key === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  adapterFor = (model: string): Adapter => {
    const keyFor = (id: string) => `${model}:${id}`;
    const copy = (payload: AdapterPayload | undefined) => (payload ? { ...payload } : undefined);
    return {
      upsert: async (id, payload, expiresIn) => {
        const key = keyFor(id);
        const entry: StoredEntry = { payload: { ...payload } };
        if (typeof expiresIn === 'number') entry.expiresAt = Date.now() + expiresIn * 1000;
        this.#entries.set(key, entry);
        if (model === 'Session' && payload.uid) this.#sessionUids.set(payload.uid, key);
        if (payload.userCode) this.#userCodes.set(payload.userCode, key);
        if (grantableModels.has(model) && payload.grantId) {
          const members = this.#grants.get(payload.grantId) ?? new Set<string>();
          members.add(key);
          this.#grants.set(payload.grantId, members);
        }
      },
      find: async (id) => copy(this.#live(keyFor(id))),
      findByUid: async (uid) => copy(this.#live(this.#sessionUids.get(uid))),
      findByUserCode: async (userCode) => copy(this.#live(this.#userCodes.get(userCode))),
      consume: async (id) => {
        const payload = this.#live(keyFor(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        this.#entries.delete(keyFor(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const key of this.#grants.get(grantId) ?? []) this.#entries.delete(key);
        this.#grants.delete(grantId);
      },
    };
  };
}

class CookieJar {
  readonly #cookies = new Map<string, string>();

  set(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  /** Takes every Set-Cookie of a response (all IdP cookies share one host, so paths are ignored). */
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.split('=').map((part) => part.trim());
        if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const decodeHtml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[lower] ?? '';
  });

/** The auto-submitting page of response_mode=form_post, as a URL carrying the fields in its query. */
function formPostTarget(html: string): URL | undefined {
  const action = /<form method="post" action="([^"]*)">/i.exec(html)?.[1];
  if (action === undefined) return undefined;
  const url = new URL(decodeHtml(action));
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/>/g)) {
    url.searchParams.append(decodeHtml(match[1] ?? ''), decodeHtml(match[2] ?? ''));
  }
  return url;
}

const SUB_COOKIE = 'harness_login_sub';
const DENY_COOKIE = 'harness_login_deny';

export async function startOidcIdp(): Promise<OidcIdp> {
  const users = new Map<string, IdpUser>();
  const store = new MemoryStore();
  let lastAuthorization: URLSearchParams | undefined;
  let tokenFailures: { status: number; error: string }[] = [];

  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: 'idp-rs256', alg: 'RS256', use: 'sig' };

  const policy = interactionPolicy.base();
  // Google-style `prompt=select_account` is accepted (the harness "selects" the account it logs in as).
  policy.add(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }), 0);

  const configuration: Configuration = {
    adapter: store.adapterFor,
    jwks: { keys: [signingKey] },
    cookies: {
      keys: ['oidc-idp-harness-cookie-key'],
      long: { httpOnly: true, sameSite: 'lax', secure: false },
      short: { httpOnly: true, sameSite: 'lax', secure: false },
    },
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'picture'],
    },
    // Scope claims (email, name, ...) go into the ID token too, as Google's do, not only to userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => false },
    // Explicit lifetimes (seconds) keep oidc-provider from printing a notice for each default it uses.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: (ctx, out) => {
      ctx.type = 'text';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    findAccount: (_ctx, sub) => {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => {
          const claims: { sub: string; [claim: string]: unknown } = { sub };
          if (user.email !== undefined) claims.email = user.email;
          if (user.emailVerified !== undefined) claims.email_verified = user.emailVerified;
          if (user.name !== undefined) claims.name = user.name;
          if (user.picture !== undefined) claims.picture = user.picture;
          return claims;
        },
      };
    },
  };

  const provider = new Provider(issuer, configuration);

  // Harness middleware runs before oidc-provider's own routes (Provider#use inserts it ahead of them).
  provider.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/auth') lastAuthorization = new URLSearchParams(ctx.querystring);

    if (ctx.method === 'POST' && ctx.path === '/token') {
      const failure = tokenFailures.shift();
      if (failure) {
        ctx.status = failure.status;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: failure.error, error_description: 'failure injected by the test harness' };
        return;
      }
    }

    const interactionRoute = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (ctx.method === 'GET' && interactionRoute) {
      try {
        const interaction = await provider.interactionDetails(ctx.req, ctx.res);
        const sub = ctx.cookies.get(SUB_COOKIE, { signed: false });
        let result: InteractionResults;
        if (ctx.cookies.get(DENY_COOKIE, { signed: false }) === '1') {
          result = { error: 'access_denied', error_description: 'the user refused' };
        } else if (interaction.prompt.name === 'login' || interaction.prompt.name === 'select_account') {
          result =
            sub && users.has(sub)
              ? { login: { accountId: sub }, select_account: {} }
              : { error: 'access_denied', error_description: `no such user: ${sub ?? '(none)'}` };
        } else if (interaction.prompt.name === 'consent') {
          const accountId = interaction.session?.accountId;
          const clientId = interaction.params.client_id;
          if (typeof accountId !== 'string' || typeof clientId !== 'string')
            throw new Error('consent without a session or client');
          const grant = interaction.grantId
            ? await provider.Grant.find(interaction.grantId)
            : new provider.Grant({ accountId, clientId });
          if (!grant) throw new Error(`grant ${interaction.grantId} not found`);
          const details = interaction.prompt.details as {
            missingOIDCScope?: string[];
            missingOIDCClaims?: string[];
            missingResourceScopes?: Record<string, string[]>;
          };
          if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
          if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
          for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
            grant.addResourceScope(indicator, scopes.join(' '));
          }
          const grantId = await grant.save();
          result = { consent: interaction.grantId ? {} : { grantId } };
        } else {
          throw new Error(`unhandled prompt ${interaction.prompt.name}`);
        }
        const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
        ctx.status = 303;
        ctx.redirect(returnTo);
      } catch (error) {
        ctx.status = 400;
        ctx.type = 'text';
        ctx.body = `harness interaction failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      return;
    }

    await next();
  });

  handler = provider.callback();

  const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
  let discovery: Record<string, unknown>;
  try {
    const discoveryResponse = await fetch(discoveryUrl);
    if (!discoveryResponse.ok) throw new Error(`IdP discovery answered ${discoveryResponse.status}`);
    discovery = (await discoveryResponse.json()) as Record<string, unknown>;
  } catch (error) {
    server.close();
    throw error;
  }
  const endpoint = (field: string): string => {
    const value = discovery[field];
    if (typeof value !== 'string') throw new Error(`IdP discovery lacks ${field}`);
    return value;
  };

  return {
    issuer,
    discoveryUrl,
    authorizationUrl: endpoint('authorization_endpoint'),
    tokenUrl: endpoint('token_endpoint'),
    userinfoUrl: endpoint('userinfo_endpoint'),
    jwksUrl: endpoint('jwks_uri'),

    addUser(user) {
      users.set(user.sub, { ...user });
    },

    async addClient(client) {
      const metadata: ClientMetadata = {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [...client.redirectUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'RS256',
      };
      await provider.Client.validate(metadata);
      await store.adapterFor('Client').upsert(client.clientId, metadata);
    },

    async authorize(authUrl, sub, options = {}) {
      const jar = new CookieJar();
      jar.set(SUB_COOKIE, sub);
      if (options.deny) jar.set(DENY_COOKIE, '1');
      let url = new URL(authUrl);
      for (let hop = 0; hop < 20; hop += 1) {
        if (url.origin !== issuer) return url;
        const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
        jar.store(response);
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          url = new URL(location, url);
          continue;
        }
        const body = await response.text();
        const formPost = response.headers.get('content-type')?.startsWith('text/html')
          ? formPostTarget(body)
          : undefined;
        if (formPost && formPost.origin !== issuer) return formPost;
        throw new Error(
          `IdP answered ${response.status} at ${url.pathname} instead of redirecting: ${body.slice(0, 500)}`,
        );
      }
      throw new Error('IdP redirected more than 20 times');
    },

    lastAuthorizationRequest() {
      return lastAuthorization === undefined ? undefined : new URLSearchParams(lastAuthorization);
    },

    failNextTokenRequest({ count = 1, status = 500, error = 'server_error' } = {}) {
      for (let i = 0; i < count; i += 1) tokenFailures.push({ status, error });
    },

    async close() {
      tokenFailures = [];
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
