// A real OAuth 2.0 authorization server on loopback http that speaks the dialects of the built-in
// providers whose accounts are read from their own user APIs: GitHub, Discord, Facebook, X and
// Spotify. Each dialect lives under its own path prefix (`/github/login/oauth/authorize`,
// `/discord/api/users/@me`, ...) mirroring the provider's paths, with the provider's rules:
// authorize endpoint (registered redirect_uri, response_type, scopes it knows, PKCE), token
// endpoint (the client authentication it takes, redirect_uri and code_verifier checks, single-use
// codes, its own error shapes: GitHub answers 200 with an `error`, Facebook a Graph error object)
// and user API (the real JSON shapes, narrowed by granted scopes and requested fields, behind the
// bearer tokens the token endpoint issued). `authorize()` plays a browser already signed in at the
// provider, so tests run the whole flow with no browser.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DIALECTS = ['github', 'discord', 'facebook', 'x', 'spotify'] as const;
export type Dialect = (typeof DIALECTS)[number];

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

/** A GitHub user: `GET /user` (plus fixed fields) and `GET /user/emails`. */
export interface GitHubAccount {
  id: number;
  login: string;
  name: string | null;
  /** The public profile address; null when the user keeps every address private. */
  email: string | null;
  avatar_url: string;
  /** Every address on the account, as `/user/emails` lists them (needs the `user:email` scope). */
  emails: GitHubEmail[];
}

/** A Discord user as `GET /users/@me` describes it; `email` and `verified` need the `email` scope. */
export interface DiscordAccount {
  id: string;
  username: string;
  global_name: string | null;
  /** Avatar hash (the image is on cdn.discordapp.com), or null. */
  avatar: string | null;
  email: string | null;
  verified: boolean;
}

/** A Facebook user; Graph only holds confirmed addresses, and phone-only accounts have none. */
export interface FacebookAccount {
  id: string;
  name: string;
  email?: string;
  /** The profile picture URL (`picture.data.url`). */
  picture: string;
}

/** An X user as `GET /2/users/me` describes it. */
export interface XAccount {
  id: string;
  name: string;
  username: string;
  profile_image_url: string;
  /** Only users with a confirmed address have one (and only `users.email` tokens see it). */
  confirmed_email?: string;
}

export interface SpotifyImage {
  url: string;
  height: number | null;
  width: number | null;
}

/** A Spotify user as `GET /v1/me` describes it; `email` needs `user-read-email` (Spotify never verifies it). */
export interface SpotifyAccount {
  id: string;
  display_name: string | null;
  email: string;
  images: SpotifyImage[];
  country?: string;
  product?: string;
}

export interface AccountOf {
  github: GitHubAccount;
  discord: DiscordAccount;
  facebook: FacebookAccount;
  x: XAccount;
  spotify: SpotifyAccount;
}

export interface PeerClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface PeerEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  /** The user API Plinth reads (GitHub: `/user`, whose `/user/emails` sits under it). */
  userApiUrl: string;
}

export interface TokenRequestRecord {
  method: string;
  /** How the client authenticated: HTTP Basic, client_id + client_secret in the form, or not at all. */
  clientAuth: 'basic' | 'body' | 'none';
  clientId: string | undefined;
  /** The form as received (query for Facebook's GET). */
  form: URLSearchParams;
  /** PKCE as checked against the authorization's challenge; null when the authorization had none. */
  pkce: { method: 'S256' | 'plain'; verifierMatched: boolean } | null;
  /** 'issued', or why it was refused (whatever the dialect called it on the wire). */
  outcome: 'issued' | TokenFailureKind;
}

export interface ApiRequestRecord {
  method: string;
  /** The path under the dialect prefix, e.g. `/user/emails`. */
  path: string;
  query: URLSearchParams;
  /** The Authorization scheme used (`Bearer`, `token`, ...), or undefined. */
  authScheme: string | undefined;
  userAgent: string | undefined;
  status: number;
}

export interface OAuth2Peer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  endpoints(dialect: Dialect): PeerEndpoints;
  /** A registered application (confidential client) of a provider. */
  addClient(dialect: Dialect, client: PeerClient): void;
  /** An account the provider can sign in as; the same id again replaces it. */
  addAccount<D extends Dialect>(dialect: D, account: AccountOf[D]): void;
  /**
   * Plays a browser signed in at the provider as `accountId`: GETs `authUrl` and returns the
   * redirect (to the client's redirect_uri, with code+state or error+state) without following it.
   * Throws when the provider answers with a page instead (unknown client, unregistered
   * redirect_uri, an account that does not exist).
   */
  authorize(authUrl: string, accountId: string | number, options?: { deny?: boolean }): Promise<URL>;
  /** The query of the last authorization request of a dialect. */
  lastAuthorizationRequest(dialect: Dialect): URLSearchParams | undefined;
  /** Every token request of a dialect, oldest first. */
  tokenRequests(dialect: Dialect): TokenRequestRecord[];
  /** Every user API request of a dialect, oldest first. */
  apiRequests(dialect: Dialect): ApiRequestRecord[];
  close(): Promise<void>;
}

export type TokenFailureKind =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'redirect_mismatch'
  | 'pkce'
  | 'unsupported_grant_type';

interface Grant {
  dialect: Dialect;
  clientId: string;
  accountId: string;
  scopes: string[];
}

interface AuthorizationCode extends Grant {
  /** The redirect the code was delivered to. */
  redirectUri: string;
  challenge: { value: string; method: 'S256' | 'plain' } | null;
  expiresAt: number;
  used: boolean;
  /** Access tokens issued for it (revoked if the code is replayed, RFC 6749 §4.1.2). */
  tokens: string[];
}

interface AccessToken extends Grant {
  expiresAt: number | null;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type ApiHandler = (account: AccountOf[Dialect], grant: Grant, query: URLSearchParams) => Reply;

interface DialectRules {
  paths: { authorize: string; token: string };
  /** The user API, by path; the first is the one Plinth is pointed at. */
  api: Record<string, ApiHandler>;
  /** Client authentication the token endpoint takes. */
  clientAuth: ('basic' | 'body')[];
  pkce: 'required' | 'optional';
  scopes: ReadonlySet<string>;
  scopeSeparator: RegExp;
  /** Scopes granted even when not asked for. */
  implicitScopes?: string[];
  /** GitHub grants the scopes it knows and drops the rest; the others refuse unknown scopes. */
  unknownScopes: 'drop' | 'refuse';
  /** GitHub and Facebook default response_type and grant_type; GitHub also redirect_uri. */
  responseTypeRequired: boolean;
  grantTypeRequired: boolean;
  redirectUriRequired: boolean;
  /** Facebook's token endpoint is documented as GET (POST works too). */
  tokenMethods: string[];
  tokenResponse(accessToken: string, scopes: string[]): Record<string, unknown>;
  accessTokenTtl: number | null;
  tokenError(kind: TokenFailureKind, description: string): Reply;
  apiError(status: number, message: string): Reply;
  /** Extra parameters on an error redirect (GitHub adds error_uri). */
  authorizeErrorExtras?: Record<string, string>;
  /** Facebook appends `#_=_` to the redirect. */
  redirectFragment?: string;
  /** GitHub refuses API requests without a User-Agent. */
  requiresUserAgent?: boolean;
  /** Authorization schemes the user API takes (besides Bearer). */
  extraAuthSchemes?: string[];
}

const CODE_TTL_MS = 10 * 60 * 1000;
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const token = (prefix: string, bytes = 24) => `${prefix}${randomBytes(bytes).toString('base64url')}`;
const hasAll = (granted: string[], needed: string[]) => needed.every((scope) => granted.includes(scope));

/** The RFC 6749 error names, rendered by the standard dialects. */
const standardName = (kind: TokenFailureKind) =>
  kind === 'redirect_mismatch' || kind === 'pkce' ? 'invalid_grant' : kind;

function standardTokenError(kind: TokenFailureKind, description: string): Reply {
  // RFC 6749 §5.2: 401 for a failed client authentication, 400 otherwise.
  return {
    status: kind === 'invalid_client' ? 401 : 400,
    body: { error: standardName(kind), error_description: description },
  };
}

const fbtrace = () => randomBytes(8).toString('base64url');
const graphError = (status: number, message: string, code: number): Reply => ({
  status,
  body: { error: { message, type: 'OAuthException', code, fbtrace_id: fbtrace() } },
});

const github = (account: AccountOf[Dialect]) => account as GitHubAccount;

const RULES: Record<Dialect, DialectRules> = {
  github: {
    paths: { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token' },
    api: {
      '/user': (account) => {
        const user = github(account);
        return {
          status: 200,
          body: {
            login: user.login,
            id: user.id,
            node_id: Buffer.from(`04:User${user.id}`).toString('base64'),
            avatar_url: user.avatar_url,
            html_url: `https://github.com/${user.login}`,
            type: 'User',
            site_admin: false,
            name: user.name,
            company: null,
            blog: '',
            location: null,
            email: user.email,
            bio: null,
            public_repos: 0,
            followers: 0,
            following: 0,
            created_at: '2020-01-01T00:00:00Z',
            updated_at: '2020-01-01T00:00:00Z',
          },
        };
      },
      '/user/emails': (account, grant) => {
        // GitHub hides what a token may not see behind 404.
        if (!grant.scopes.includes('user:email') && !grant.scopes.includes('user')) {
          return {
            status: 404,
            body: {
              message: 'Not Found',
              documentation_url: 'https://docs.github.com/rest/users/emails',
              status: '404',
            },
          };
        }
        return { status: 200, body: github(account).emails.map((e) => ({ ...e })) };
      },
    },
    clientAuth: ['basic', 'body'],
    pkce: 'optional',
    scopes: new Set([
      'repo',
      'public_repo',
      'repo:status',
      'read:org',
      'write:org',
      'admin:org',
      'gist',
      'notifications',
      'user',
      'read:user',
      'user:email',
      'user:follow',
      'project',
      'read:project',
      'delete_repo',
      'workflow',
      'read:packages',
      'write:packages',
      'admin:public_key',
      'read:public_key',
      'read:gpg_key',
      'codespace',
    ]),
    scopeSeparator: /[ ,]+/,
    unknownScopes: 'drop',
    responseTypeRequired: false,
    grantTypeRequired: false,
    redirectUriRequired: false,
    tokenMethods: ['POST'],
    tokenResponse: (accessToken, scopes) => ({
      access_token: accessToken,
      token_type: 'bearer',
      scope: scopes.join(','),
    }),
    accessTokenTtl: null,
    // GitHub answers token errors with 200 and its own error names.
    tokenError: (kind, description) => ({
      status: 200,
      body: {
        error: {
          invalid_client: 'incorrect_client_credentials',
          invalid_grant: 'bad_verification_code',
          pkce: 'bad_verification_code',
          redirect_mismatch: 'redirect_uri_mismatch',
          invalid_request: 'invalid_request',
          unsupported_grant_type: 'unsupported_grant_type',
        }[kind],
        error_description: description,
        error_uri:
          'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors',
      },
    }),
    apiError: (status, message) => ({
      status,
      body: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
    }),
    authorizeErrorExtras: {
      error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors',
    },
    requiresUserAgent: true,
    extraAuthSchemes: ['token'],
  },

  discord: {
    paths: { authorize: '/oauth2/authorize', token: '/api/oauth2/token' },
    api: {
      '/api/users/@me': (account, grant) => {
        const user = account as DiscordAccount;
        const body: Record<string, unknown> = {
          id: user.id,
          username: user.username,
          discriminator: '0',
          global_name: user.global_name,
          avatar: user.avatar,
          public_flags: 0,
          flags: 0,
          banner: null,
          accent_color: null,
          locale: 'en-US',
          mfa_enabled: false,
          premium_type: 0,
        };
        if (grant.scopes.includes('email')) Object.assign(body, { email: user.email, verified: user.verified });
        return { status: 200, body };
      },
    },
    clientAuth: ['basic', 'body'],
    pkce: 'optional',
    scopes: new Set([
      'identify',
      'email',
      'connections',
      'guilds',
      'guilds.join',
      'guilds.members.read',
      'gdm.join',
      'openid',
      'role_connections.write',
      'applications.commands',
      'bot',
      'messages.read',
      'rpc',
      'activities.read',
    ]),
    scopeSeparator: / +/,
    unknownScopes: 'refuse',
    responseTypeRequired: true,
    grantTypeRequired: true,
    redirectUriRequired: true,
    tokenMethods: ['POST'],
    tokenResponse: (accessToken, scopes) => ({
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: token('', 20),
      scope: scopes.join(' '),
    }),
    accessTokenTtl: 604800,
    tokenError: standardTokenError,
    apiError: (status) => ({
      status,
      body: { message: `${status}: ${status === 401 ? 'Unauthorized' : 'Forbidden'}`, code: 0 },
    }),
  },

  facebook: {
    paths: { authorize: '/v19.0/dialog/oauth', token: '/v19.0/oauth/access_token' },
    api: {
      '/me': (account, grant, query) => {
        const user = account as FacebookAccount;
        // Graph returns only the fields asked for; id and name by default.
        const fields = (query.get('fields') ?? 'id,name')
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean);
        const body: Record<string, unknown> = {};
        for (const field of fields) {
          if (field === 'id') body.id = user.id;
          else if (field === 'name') body.name = user.name;
          else if (field === 'picture')
            body.picture = { data: { height: 50, is_silhouette: false, url: user.picture, width: 50 } };
          else if (field === 'email') {
            if (grant.scopes.includes('email') && user.email !== undefined) body.email = user.email;
          } else return graphError(400, `(#100) Tried accessing nonexisting field (${field}) on node type (User)`, 100);
        }
        return { status: 200, body };
      },
    },
    clientAuth: ['body'],
    pkce: 'optional',
    scopes: new Set([
      'public_profile',
      'email',
      'openid',
      'user_friends',
      'user_birthday',
      'user_gender',
      'user_link',
      'user_location',
      'user_photos',
      'user_posts',
      'user_likes',
      'user_hometown',
      'user_age_range',
    ]),
    scopeSeparator: /[ ,]+/,
    implicitScopes: ['public_profile'],
    unknownScopes: 'refuse',
    responseTypeRequired: false,
    grantTypeRequired: false,
    redirectUriRequired: true,
    tokenMethods: ['GET', 'POST'],
    tokenResponse: (accessToken) => ({ access_token: accessToken, token_type: 'bearer', expires_in: 5183944 }),
    accessTokenTtl: 5183944,
    tokenError: (kind, description) => graphError(400, description, kind === 'invalid_client' ? 1 : 100),
    apiError: (status, message) => graphError(status === 401 ? 400 : status, message, 190),
    redirectFragment: '#_=_',
    extraAuthSchemes: ['OAuth'],
  },

  x: {
    paths: { authorize: '/i/oauth2/authorize', token: '/2/oauth2/token' },
    api: {
      '/2/users/me': (account, grant, query) => {
        const user = account as XAccount;
        // X requires both scopes for this endpoint.
        if (!hasAll(grant.scopes, ['users.read', 'tweet.read'])) {
          return { status: 403, body: { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' } };
        }
        const fields = (query.get('user.fields') ?? '')
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean);
        const data: Record<string, unknown> = { id: user.id, name: user.name, username: user.username };
        if (fields.includes('profile_image_url')) data.profile_image_url = user.profile_image_url;
        if (
          fields.includes('confirmed_email') &&
          grant.scopes.includes('users.email') &&
          user.confirmed_email !== undefined
        ) {
          data.confirmed_email = user.confirmed_email;
        }
        return { status: 200, body: { data } };
      },
    },
    clientAuth: ['basic'],
    pkce: 'required',
    scopes: new Set([
      'tweet.read',
      'tweet.write',
      'tweet.moderate.write',
      'users.read',
      'users.email',
      'follows.read',
      'follows.write',
      'offline.access',
      'space.read',
      'mute.read',
      'mute.write',
      'like.read',
      'like.write',
      'list.read',
      'list.write',
      'block.read',
      'block.write',
      'bookmark.read',
      'bookmark.write',
      'media.write',
    ]),
    scopeSeparator: / +/,
    unknownScopes: 'refuse',
    responseTypeRequired: true,
    grantTypeRequired: true,
    redirectUriRequired: true,
    tokenMethods: ['POST'],
    tokenResponse: (accessToken, scopes) => ({
      token_type: 'bearer',
      expires_in: 7200,
      access_token: accessToken,
      scope: scopes.join(' '),
    }),
    accessTokenTtl: 7200,
    tokenError: (kind, description) =>
      kind === 'invalid_client'
        ? { status: 401, body: { error: 'unauthorized_client', error_description: description } }
        : standardTokenError(kind, description),
    apiError: (status) => ({
      status,
      body: {
        title: status === 401 ? 'Unauthorized' : 'Forbidden',
        type: 'about:blank',
        status,
        detail: status === 401 ? 'Unauthorized' : 'Forbidden',
      },
    }),
  },

  spotify: {
    paths: { authorize: '/authorize', token: '/api/token' },
    api: {
      '/v1/me': (account, grant) => {
        const user = account as SpotifyAccount;
        const body: Record<string, unknown> = {
          display_name: user.display_name,
          external_urls: { spotify: `https://open.spotify.com/user/${user.id}` },
          followers: { href: null, total: 0 },
          href: `https://api.spotify.com/v1/users/${user.id}`,
          id: user.id,
          images: user.images.map((image) => ({ ...image })),
          type: 'user',
          uri: `spotify:user:${user.id}`,
        };
        if (grant.scopes.includes('user-read-email')) body.email = user.email;
        if (grant.scopes.includes('user-read-private')) {
          Object.assign(body, {
            country: user.country ?? 'SE',
            product: user.product ?? 'free',
            explicit_content: { filter_enabled: false, filter_locked: false },
          });
        }
        return { status: 200, body };
      },
    },
    clientAuth: ['basic'],
    pkce: 'optional',
    scopes: new Set([
      'user-read-email',
      'user-read-private',
      'playlist-read-private',
      'playlist-read-collaborative',
      'playlist-modify-private',
      'playlist-modify-public',
      'user-library-read',
      'user-library-modify',
      'user-top-read',
      'user-read-recently-played',
      'user-follow-read',
      'user-follow-modify',
      'user-read-playback-state',
      'user-modify-playback-state',
      'user-read-currently-playing',
      'streaming',
      'app-remote-control',
      'ugc-image-upload',
    ]),
    scopeSeparator: / +/,
    unknownScopes: 'refuse',
    responseTypeRequired: true,
    grantTypeRequired: true,
    redirectUriRequired: true,
    tokenMethods: ['POST'],
    tokenResponse: (accessToken, scopes) => ({
      access_token: accessToken,
      token_type: 'Bearer',
      scope: scopes.join(' '),
      expires_in: 3600,
      refresh_token: token('AQ', 48),
    }),
    accessTokenTtl: 3600,
    // Spotify answers every token error with 400, client errors included.
    tokenError: (kind, description) => ({
      status: 400,
      body: { error: standardName(kind), error_description: description },
    }),
    apiError: (status, message) => ({ status, body: { error: { status, message } } }),
  },
};

const SESSION_COOKIE = 'oauth2_peer_session';
const DENY_COOKIE = 'oauth2_peer_deny';

function cookies(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
  }
  return jar;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** RFC 6749 §2.3.1: the Basic credentials are the form-urlencoded client id and secret. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | 'malformed' | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return 'malformed';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  const formDecode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return part;
    }
  };
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export async function startOAuth2Peer(): Promise<OAuth2Peer> {
  const clients = new Map<string, PeerClient>();
  const accounts = new Map<string, AccountOf[Dialect]>();
  const codes = new Map<string, AuthorizationCode>();
  const accessTokens = new Map<string, AccessToken>();
  const lastAuthorization = new Map<Dialect, URLSearchParams>();
  const tokenLog = new Map<Dialect, TokenRequestRecord[]>(DIALECTS.map((d) => [d, []]));
  const apiLog = new Map<Dialect, ApiRequestRecord[]>(DIALECTS.map((d) => [d, []]));
  const key = (dialect: Dialect, id: string | number) => `${dialect}:${id}`;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, { status: 500, body: { error: 'server_error', error_description: String(error) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function send(res: ServerResponse, reply: Reply) {
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...reply.headers };
    if (typeof reply.body === 'string') {
      headers['content-type'] ??= 'text/html; charset=utf-8';
      res.writeHead(reply.status, headers).end(reply.body);
    } else {
      headers['content-type'] ??= 'application/json; charset=utf-8';
      res.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
    }
  }

  const page = (status: number, title: string, detail: string): Reply => ({
    status,
    body: `<!doctype html><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>`,
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    const [, prefix = '', ...rest] = url.pathname.split('/');
    const dialect = (DIALECTS as readonly string[]).includes(prefix) ? (prefix as Dialect) : undefined;
    if (!dialect) return send(res, { status: 404, body: { error: 'not_found' } });
    const rules = RULES[dialect];
    const path = `/${rest.join('/')}`;

    if (path === rules.paths.authorize && req.method === 'GET')
      return send(res, authorizeEndpoint(dialect, rules, url, req));
    if (path === rules.paths.token && rules.tokenMethods.includes(req.method ?? '')) {
      return send(res, tokenEndpoint(dialect, rules, url, req, req.method === 'POST' ? await readBody(req) : ''));
    }
    // Facebook serves the Graph API both with and without the version prefix.
    const apiPath = dialect === 'facebook' ? path.replace(/^\/v\d+\.\d+(?=\/)/, '') : path;
    const api = rules.api[apiPath];
    if (api && req.method === 'GET') {
      const reply = userApi(dialect, rules, api, url, req);
      const scheme = /^(\S+)\s/.exec(req.headers.authorization ?? '')?.[1];
      apiLog.get(dialect)!.push({
        method: req.method,
        path: apiPath,
        query: new URLSearchParams(url.search),
        authScheme: scheme,
        userAgent: req.headers['user-agent'],
        status: reply.status,
      });
      return send(res, reply);
    }
    return send(res, rules.apiError(404, 'Not Found'));
  }

  function authorizeEndpoint(dialect: Dialect, rules: DialectRules, url: URL, req: IncomingMessage): Reply {
    const params = url.searchParams;
    lastAuthorization.set(dialect, new URLSearchParams(params));

    // Without a known client and a registered redirect_uri nothing may be redirected (RFC 6749 §4.1.2.1).
    const clientId = params.get('client_id');
    const client = clientId ? clients.get(key(dialect, clientId)) : undefined;
    if (!client) return page(400, 'Invalid client', `Unknown client_id: ${clientId ?? '(none)'}`);
    const sentRedirect = params.get('redirect_uri');
    if (sentRedirect === null && (rules.redirectUriRequired || client.redirectUris.length !== 1)) {
      return page(400, 'Invalid redirect_uri', 'redirect_uri is required');
    }
    const redirectUri = sentRedirect ?? client.redirectUris[0]!;
    if (!client.redirectUris.includes(redirectUri)) {
      return page(
        400,
        'Invalid redirect_uri',
        `The redirect_uri is not registered for this application: ${redirectUri}`,
      );
    }

    const state = params.get('state');
    const redirect = (fields: Record<string, string>): Reply => {
      const target = new URL(redirectUri);
      for (const [name, value] of Object.entries(fields)) target.searchParams.set(name, value);
      if (state !== null) target.searchParams.set('state', state);
      return { status: 302, body: '', headers: { location: `${target.toString()}${rules.redirectFragment ?? ''}` } };
    };
    const refuse = (error: string, description: string) =>
      redirect({ error, error_description: description, ...rules.authorizeErrorExtras });

    const responseType = params.get('response_type');
    if (responseType === null ? rules.responseTypeRequired : responseType !== 'code') {
      return refuse('unsupported_response_type', `response_type must be code, not ${responseType ?? '(none)'}`);
    }

    const asked = (params.get('scope') ?? '').split(rules.scopeSeparator).filter(Boolean);
    const unknown = asked.filter((scope) => !rules.scopes.has(scope));
    if (unknown.length > 0 && rules.unknownScopes === 'refuse')
      return refuse('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
    const scopes = [...new Set([...(rules.implicitScopes ?? []), ...asked.filter((scope) => rules.scopes.has(scope))])];
    if (scopes.length === 0 && dialect !== 'github') return refuse('invalid_scope', 'scope is required');

    let challenge: AuthorizationCode['challenge'] = null;
    const challengeValue = params.get('code_challenge');
    if (challengeValue !== null) {
      // RFC 7636 §4.3: the method defaults to plain.
      const method = params.get('code_challenge_method') ?? 'plain';
      if (method !== 'S256' && method !== 'plain')
        return refuse('invalid_request', `Unsupported code_challenge_method: ${method}`);
      if (!PKCE_VALUE.test(challengeValue)) return refuse('invalid_request', 'Malformed code_challenge');
      challenge = { value: challengeValue, method };
    } else if (rules.pkce === 'required') {
      return refuse('invalid_request', 'code_challenge is required');
    }

    // The browser's session at the provider: who is signed in, and whether they consent.
    const jar = cookies(req);
    const accountId = jar.get(SESSION_COOKIE);
    if (!accountId || !accounts.has(key(dialect, accountId))) {
      return page(200, 'Sign in', `Sign in to continue to the application (no account ${accountId ?? ''}).`);
    }
    if (jar.get(DENY_COOKIE) === '1') return refuse('access_denied', 'The user has denied your application access.');

    const code = token('', 20);
    codes.set(code, {
      dialect,
      clientId: client.clientId,
      accountId,
      scopes,
      redirectUri,
      challenge,
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
      tokens: [],
    });
    return redirect({ code });
  }

  function tokenEndpoint(dialect: Dialect, rules: DialectRules, url: URL, req: IncomingMessage, body: string): Reply {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const form =
      req.method === 'GET'
        ? new URLSearchParams(url.search)
        : new URLSearchParams(contentType === 'application/x-www-form-urlencoded' ? body : '');
    const record: TokenRequestRecord = {
      method: req.method ?? '',
      clientAuth: 'none',
      clientId: undefined,
      form,
      pkce: null,
      outcome: 'issued',
    };
    tokenLog.get(dialect)!.push(record);
    const fail = (kind: TokenFailureKind, description: string): Reply => {
      record.outcome = kind;
      return rules.tokenError(kind, description);
    };

    if (req.method === 'POST' && contentType !== 'application/x-www-form-urlencoded') {
      return fail('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
    }

    // Client authentication: exactly one method (RFC 6749 §2.3), and one this provider takes.
    const basic = basicCredentials(req.headers.authorization);
    if (basic === 'malformed') return fail('invalid_client', 'Malformed Authorization header.');
    const bodySecret = form.get('client_secret');
    if (basic && bodySecret !== null) return fail('invalid_request', 'Use one client authentication method, not two.');
    let credentials: { id: string; secret: string } | undefined;
    if (basic) {
      record.clientAuth = 'basic';
      credentials = basic;
      if (form.has('client_id') && form.get('client_id') !== basic.id)
        return fail('invalid_request', 'client_id does not match the Authorization header.');
    } else if (bodySecret !== null) {
      record.clientAuth = 'body';
      credentials = { id: form.get('client_id') ?? '', secret: bodySecret };
    }
    record.clientId = credentials?.id ?? form.get('client_id') ?? undefined;
    if (!credentials) return fail('invalid_client', 'Client authentication is required for this application.');
    if (!rules.clientAuth.includes(record.clientAuth as 'basic' | 'body')) {
      return fail(
        'invalid_client',
        `This provider does not take client credentials by ${record.clientAuth === 'basic' ? 'HTTP Basic' : 'the request body'}.`,
      );
    }
    const client = clients.get(key(dialect, credentials.id));
    if (!client || client.clientSecret !== credentials.secret)
      return fail('invalid_client', 'The client_id and/or client_secret passed are incorrect.');

    const grantType = form.get('grant_type');
    if (grantType === null ? rules.grantTypeRequired : grantType !== 'authorization_code') {
      return fail('unsupported_grant_type', `Unsupported grant_type: ${grantType ?? '(none)'}`);
    }

    const code = form.get('code');
    if (!code) return fail('invalid_request', 'code is required.');
    const grant = codes.get(code);
    if (!grant || grant.dialect !== dialect || grant.clientId !== client.clientId) {
      return fail('invalid_grant', 'The code passed is incorrect or expired.');
    }
    if (grant.used) {
      // A replayed code: revoke what it already bought (RFC 6749 §4.1.2).
      for (const issued of grant.tokens) accessTokens.delete(issued);
      return fail('invalid_grant', 'The code passed is incorrect or expired.');
    }
    if (grant.expiresAt <= Date.now()) return fail('invalid_grant', 'The code passed is incorrect or expired.');
    // Any further attempt with this code is a replay, whether this one succeeds or not.
    grant.used = true;

    const redirectUri = form.get('redirect_uri');
    if (redirectUri === null ? rules.redirectUriRequired : redirectUri !== grant.redirectUri) {
      return fail('redirect_mismatch', 'The redirect_uri does not match the one of the authorization request.');
    }

    if (grant.challenge) {
      const verifier = form.get('code_verifier');
      const matched =
        verifier !== null &&
        PKCE_VALUE.test(verifier) &&
        (grant.challenge.method === 'S256' ? s256(verifier) : verifier) === grant.challenge.value;
      record.pkce = { method: grant.challenge.method, verifierMatched: matched };
      if (!matched)
        return fail(
          'pkce',
          verifier === null ? 'code_verifier is required.' : 'The code_verifier does not match the code_challenge.',
        );
    }

    const accessToken = token(dialect === 'github' ? 'gho_' : '');
    accessTokens.set(accessToken, {
      dialect,
      clientId: grant.clientId,
      accountId: grant.accountId,
      scopes: grant.scopes,
      expiresAt: rules.accessTokenTtl === null ? null : Date.now() + rules.accessTokenTtl * 1000,
    });
    grant.tokens.push(accessToken);
    const response = rules.tokenResponse(accessToken, grant.scopes);
    // GitHub answers urlencoded unless JSON is asked for.
    if (dialect === 'github' && !(req.headers.accept ?? '').includes('application/json')) {
      const encoded = new URLSearchParams(Object.entries(response).map(([name, value]) => [name, String(value)]));
      return {
        status: 200,
        body: encoded.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      };
    }
    return { status: 200, body: response };
  }

  function userApi(dialect: Dialect, rules: DialectRules, api: ApiHandler, url: URL, req: IncomingMessage): Reply {
    if (rules.requiresUserAgent && !req.headers['user-agent']) {
      return rules.apiError(
        403,
        'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.',
      );
    }
    const header = req.headers.authorization ?? '';
    const match = /^(\S+)\s+(\S+)$/.exec(header);
    const schemes = ['bearer', ...(rules.extraAuthSchemes ?? []).map((s) => s.toLowerCase())];
    let presented = match && schemes.includes(match[1]!.toLowerCase()) ? match[2] : undefined;
    // Graph also takes the token as a query parameter.
    if (presented === undefined && dialect === 'facebook')
      presented = url.searchParams.get('access_token') ?? undefined;
    const grant = presented === undefined ? undefined : accessTokens.get(presented);
    if (!grant || grant.dialect !== dialect || (grant.expiresAt !== null && grant.expiresAt <= Date.now())) {
      return rules.apiError(
        401,
        dialect === 'facebook'
          ? 'Invalid OAuth access token - Cannot parse access token'
          : dialect === 'github'
            ? 'Bad credentials'
            : 'Invalid access token',
      );
    }
    if (dialect === 'discord' && !grant.scopes.includes('identify')) return rules.apiError(401, 'Unauthorized');
    const account = accounts.get(key(dialect, grant.accountId));
    if (!account) return rules.apiError(404, 'Not Found');
    return api(account, grant, url.searchParams);
  }

  return {
    origin,

    endpoints(dialect) {
      const rules = RULES[dialect];
      const base = `${origin}/${dialect}`;
      return {
        authorizationUrl: `${base}${rules.paths.authorize}`,
        tokenUrl: `${base}${rules.paths.token}`,
        userApiUrl: `${base}${Object.keys(rules.api)[0]!}`,
      };
    },

    addClient(dialect, client) {
      clients.set(key(dialect, client.clientId), { ...client, redirectUris: [...client.redirectUris] });
    },

    addAccount(dialect, account) {
      accounts.set(key(dialect, account.id), structuredClone(account));
    },

    async authorize(authUrl, accountId, options = {}) {
      const cookie = [`${SESSION_COOKIE}=${encodeURIComponent(String(accountId))}`];
      if (options.deny) cookie.push(`${DENY_COOKIE}=1`);
      const response = await fetch(authUrl, { redirect: 'manual', headers: { cookie: cookie.join('; ') } });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        return new URL(location, authUrl);
      }
      const text = await response.text();
      throw new Error(
        `the provider answered ${response.status} instead of redirecting: ${text
          .replace(/<[^>]+>/g, ' ')
          .trim()
          .slice(0, 300)}`,
      );
    },

    lastAuthorizationRequest(dialect) {
      const seen = lastAuthorization.get(dialect);
      return seen === undefined ? undefined : new URLSearchParams(seen);
    },

    tokenRequests(dialect) {
      return [...tokenLog.get(dialect)!];
    },

    apiRequests(dialect) {
      return [...apiLog.get(dialect)!];
    },

    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
