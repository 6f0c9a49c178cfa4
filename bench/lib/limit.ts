// The "limit" server: bare Fastify + postgres.js issuing the same SQL as Plinth for each scenario
// and doing the same crypto as Plinth (verify with Plinth's public key, sign with a key of its kind: ES256 on the event loop, RS256
// on the thread pool; SHA-256, HMAC), and nothing else:
// no validation, hooks or plugins. What Plinth reaches as a fraction of this is its envelope cost.
// The records routes, with their transaction envelopes, are in limit-records.ts.
import {
  createHash,
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type KeyObject,
  type VerifyKeyObjectInput,
} from 'node:crypto';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { freePort } from '../../test/harness/free-port.js';
import { recordsRoutes, type UserClaims } from './limit-records.js';
import { userViewRecordsRoutes } from './limit-user-view.js';
import type { Config } from '../../src/config.js';
import type { RecordsStatements } from './records.js';

const signAsync = promisify(sign);

export interface LimitOptions {
  databaseUrl: string;
  port: number;
  poolSize: number;
  /** Plinth's kid and public key (the limit accepts Plinth's access tokens); a private key of the same kind to sign like it. */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  graceSeconds: number;
}

export interface LimitServer {
  url: string;
  /** The Fastify instance (inject() measures its JavaScript alone: bench/probes/frame-cost.ts). */
  app: FastifyInstance;
  /** Hands the records routes their statements (captured once the bench has made the table). */
  useRecords(statements: RecordsStatements): void;
  close(): Promise<void>;
}

/** How the limit checks a bearer token on current-session (printed with the results). */
export const LIMIT_JWT_CHECK =
  "signature verified with node:crypto verify (ES256, or RS256 with an RSA key: Plinth's key's algorithm), exp checked";

/** A key as node:crypto signs and verifies a JWS with it: ES256 signatures are r‖s (IEEE P1363). */
const jwsKey = (key: KeyObject): KeyObject | VerifyKeyObjectInput =>
  key.asymmetricKeyType === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key;
const jwsAlgorithm = (key: KeyObject) => (key.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256');

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** sub, sid, email, role, aal and is_anonymous of a valid token, else null. */
function verifiedClaims(token: string, publicKey: KeyObject): UserClaims | null {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return null;
  if (!verify('sha256', Buffer.from(`${header}.${payload}`), jwsKey(publicKey), Buffer.from(signature, 'base64url')))
    return null;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!(claims.exp > Date.now() / 1000)) return null;
  return {
    sub: claims.sub,
    sid: claims.sid,
    email: claims.email,
    role: claims.role,
    aal: claims.aal,
    is_anonymous: claims.is_anonymous,
  };
}

function routes(app: FastifyInstance, sql: postgres.Sql, o: LimitOptions): void {
  const successorKey = randomBytes(32);
  const sha256 = (value: string) => createHash('sha256').update(value).digest();
  // The SQL text of userColumns (users.repo.ts).
  const userColumns = () => sql`
    u.id, u.email, u.email_verified as "emailVerified", u.providers, u.profile, u.metadata,
    to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
    to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt"`;

  // findSessionUser (users.repo.ts).
  app.get('/api/auth/sessions/current', async (request, reply) => {
    const claims = verifiedClaims(request.headers.authorization?.slice('Bearer '.length) ?? '', o.publicKey);
    if (!claims) return reply.code(401).send({ error: 'UNAUTHORIZED' });
    const [user] = await sql`
      select ${userColumns()}
      from auth.user_records u
      join auth.sessions s on s.user_id = u.id
      where u.id = ${claims.sub} and s.id = ${claims.sid} and s.revoked_at is null and s.expires_at > ${new Date()}`;
    if (!user) return reply.code(401).send({ error: 'UNAUTHORIZED' });
    return { user: { ...user, role: 'authenticated' } };
  });

  // rotateRefreshToken (sessions.repo.ts), then an access token signed on the thread pool.
  app.post('/api/auth/refresh', async (request, reply) => {
    const token = (request.body as { refreshToken?: string } | null)?.refreshToken ?? '';
    const successor = createHmac('sha256', successorKey).update(token).digest('base64url');
    const now = new Date();
    const [row] = await sql`
      select r.outcome, r.session_id as "sessionId", r.user_id as "userId", r.admin_subject as "adminSubject",
        (select to_jsonb(x) from (select ${userColumns()} from auth.user_records u where u.id = r.user_id) x) as "user"
      from auth.rotate_refresh_token(${sha256(token)}, ${sha256(successor)}, ${now},
        make_interval(secs => ${o.graceSeconds}), make_interval(secs => ${o.refreshTtlSeconds}), ${false}) r`;
    if (row?.outcome !== 'rotated' || !row.user) return reply.code(401).send({ error: 'UNAUTHORIZED' });
    const iat = Math.floor(now.getTime() / 1000);
    const claims = {
      sub: row.user.id,
      email: row.user.email,
      role: 'authenticated',
      sid: row.sessionId,
      iat,
      exp: iat + o.accessTtlSeconds,
    };
    const input = `${b64json({ alg: jwsAlgorithm(o.privateKey), typ: 'JWT', kid: o.kid })}.${b64json(claims)}`;
    // Signed where Plinth signs (core/jwt.ts): ES256 on the event loop, RS256 on the thread pool.
    const signature =
      jwsAlgorithm(o.privateKey) === 'ES256'
        ? sign('sha256', Buffer.from(input), jwsKey(o.privateKey))
        : await signAsync('sha256', Buffer.from(input), jwsKey(o.privateKey));
    return { user: row.user, accessToken: `${input}.${signature.toString('base64url')}`, refreshToken: successor };
  });
}

export async function startLimitServer(o: LimitOptions): Promise<LimitServer> {
  const sql = postgres(o.databaseUrl, { max: o.poolSize, onnotice: () => {} });
  const app = Fastify({ logger: false });
  routes(app, sql, o);
  let records: RecordsStatements | undefined;
  const verifyToken = (token: string) => verifiedClaims(token, o.publicKey);
  recordsRoutes(app, sql, { verify: verifyToken, statements: () => records });
  userViewRecordsRoutes(app, sql, { verify: verifyToken });
  try {
    await app.listen({ port: o.port, host: '127.0.0.1' });
  } catch (err) {
    await sql.end({ timeout: 1 });
    throw err;
  }
  return {
    url: `http://127.0.0.1:${o.port}`,
    app,
    useRecords(statements) {
      records = statements;
    },
    async close() {
      await app.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * The limit beside a running Plinth: its pool size and token settings, a free port. It verifies
 * with Plinth's public key (its JWKS, as any client reads it) and signs with a fresh key of the
 * same algorithm and size under Plinth's kid (Plinth's private key never leaves the server).
 */
export async function startLimitBeside(
  databaseUrl: string,
  plinth: {
    url: string;
    config: Pick<
      Config,
      'dbPoolSize' | 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds' | 'refreshReuseGraceSeconds'
    >;
  },
): Promise<LimitServer> {
  const res = await fetch(`${plinth.url}/.well-known/jwks.json`);
  if (res.status !== 200) throw new Error(`GET /.well-known/jwks.json: ${res.status}`);
  const [jwk] = ((await res.json()) as { keys: (Record<string, unknown> & { kid: string })[] }).keys;
  if (!jwk) throw new Error('Plinth publishes no signing key');
  const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
  const { privateKey } =
    publicKey.asymmetricKeyType === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: publicKey.asymmetricKeyDetails?.namedCurve ?? 'prime256v1' })
      : generateKeyPairSync('rsa', { modulusLength: publicKey.asymmetricKeyDetails?.modulusLength ?? 2048 });
  const { config } = plinth;
  return startLimitServer({
    databaseUrl,
    port: await freePort(),
    poolSize: config.dbPoolSize,
    kid: jwk.kid,
    privateKey,
    publicKey,
    accessTtlSeconds: config.accessTokenTtlSeconds,
    refreshTtlSeconds: config.refreshTokenTtlSeconds,
    graceSeconds: config.refreshReuseGraceSeconds,
  });
}
