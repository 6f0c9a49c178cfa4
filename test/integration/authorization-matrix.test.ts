// Authorization matrix: every route the app registers × every kind of credential a caller can
// send, with the status the caller must see. The route table is checked against the app's own
// route tree and OpenAPI document, so a new route without a row here fails this file.
import { createHash, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey, signingKeyFromPem, signJwt } from '../../src/core/jwt.js';
import { twoTonePng } from '../harness/images.js';
import { idpMetadataXml, type IdpKey, makeIdpKey } from '../harness/saml-idp.js';
import { SoftAuthenticator } from '../harness/soft-authenticator.js';
import { bearer, startTestApp, TEST_ADMIN, type TestApp } from '../harness/test-app.js';

let t: TestApp;
/** Credentials and resources made once, before any clock movement. */
const shared = {
  user: { id: '', email: '', password: '', accessToken: '' },
  adminToken: '',
  foreignKeyToken: '',
  tamperedToken: '',
  unsignedToken: '',
};

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

beforeAll(async () => {
  // The AI provider at a closed loopback port: the model catalogue row never leaves the machine.
  // Webhook and schedule URLs point there too (a private address, so the operator allows it).
  t = await startTestApp({
    env: { OPENROUTER_BASE_URL: 'http://127.0.0.1:9', OUTBOUND_ALLOWED_ORIGINS: 'http://127.0.0.1:9' },
  });
  const user = await t.signUp();
  shared.user = { id: user.user.id, email: user.email, password: user.password, accessToken: user.accessToken };
  shared.adminToken = await t.adminToken();

  // Forgeries of a project-admin token: the real admin claims and kid, signed with a key the
  // server never issued; with alg "none"; and a user token whose payload was edited to admin.
  const [adminHeader, adminPayload] = shared.adminToken.split('.') as [string, string, string];
  const { kid } = decodePart(adminHeader) as { kid: string };
  const stranger = signingKeyFromPem(kid, generateSigningKey().privatePem);
  shared.foreignKeyToken = await signJwt(stranger, decodePart(adminPayload));
  shared.unsignedToken = `${b64json({ alg: 'none', typ: 'JWT', kid })}.${adminPayload}.`;
  const [userHeader, userPayload, userSignature] = shared.user.accessToken.split('.') as [string, string, string];
  shared.tamperedToken = `${userHeader}.${b64json({ ...decodePart(userPayload), role: 'project_admin' })}.${userSignature}`;
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// Credentials

/**
 * What a credential is worth: nothing sent, rejected outright, or a principal of some kind.
 * 'rejectedToken': an access token (a JWT) that fails verification, refused with 401
 * AUTH_UNAUTHORIZED (the code the official client refreshes on, api-contract item 14); every
 * other refused credential gets 401 UNAUTHORIZED.
 */
type Kind = 'none' | 'invalid' | 'rejectedToken' | 'anon' | 'user' | 'admin' | 'apiKey';
type Headers = Record<string, string>;

interface Credential {
  kind: Kind;
  /** `fresh`: a session of its own, for routes that end the caller's session. */
  headers(fresh: boolean): Promise<Headers>;
}

const UNKNOWN_API_KEY = `ik_${'0'.repeat(64)}`;
const UNKNOWN_ANON_KEY = `anon_${'0'.repeat(64)}`;

const credentials = {
  'no credential': { kind: 'none', headers: async () => ({}) },
  'anon key': { kind: 'anon', headers: async () => bearer(t.anonKey) },
  'user access token': {
    kind: 'user',
    headers: async (fresh) => bearer(fresh ? (await t.signUp()).accessToken : shared.user.accessToken),
  },
  'admin access token': {
    kind: 'admin',
    headers: async (fresh) => bearer(fresh ? await t.adminToken() : shared.adminToken),
  },
  'API key as Bearer': { kind: 'apiKey', headers: async () => bearer(t.apiKey) },
  'API key as x-api-key': { kind: 'apiKey', headers: async () => ({ 'x-api-key': t.apiKey }) },
  'garbage bearer': { kind: 'invalid', headers: async () => bearer('garbage') },
  'unknown API key as Bearer': { kind: 'invalid', headers: async () => bearer(UNKNOWN_API_KEY) },
  'unknown API key as x-api-key': { kind: 'invalid', headers: async () => ({ 'x-api-key': UNKNOWN_API_KEY }) },
  'unknown anon key': { kind: 'invalid', headers: async () => bearer(UNKNOWN_ANON_KEY) },
  'admin claims signed by another key': { kind: 'rejectedToken', headers: async () => bearer(shared.foreignKeyToken) },
  'user token edited to project_admin': { kind: 'rejectedToken', headers: async () => bearer(shared.tamperedToken) },
  'unsigned (alg none) admin token': { kind: 'rejectedToken', headers: async () => bearer(shared.unsignedToken) },
} satisfies Record<string, Credential>;
type CredentialName = keyof typeof credentials;

/** Tokens that were valid when issued; the last describe moves the clock past their lifetime. */
const expiredCredentials = {
  'expired user token': { kind: 'rejectedToken', headers: async () => bearer(shared.user.accessToken) },
  'expired admin token': { kind: 'rejectedToken', headers: async () => bearer(shared.adminToken) },
} satisfies Record<string, Credential>;

// ---------------------------------------------------------------------------------------------
// Routes

type Access = 'public' | 'client' | 'token' | 'admin';
/**
 * 'ok': the route's success status; 401 UNAUTHORIZED; 403 INSUFFICIENT_PERMISSIONS; 'aal2': 403
 * AUTH_INSUFFICIENT_AAL, the caller is let in but the handler wants a session verified with a
 * second factor (the matrix's user token is aal1, and the shared user has passkeys by then).
 */
type Outcome = 'ok' | 401 | 403 | 'aal2';

interface Row {
  /** METHOD and path pattern exactly as the router holds it. */
  route: string;
  access: Access;
  /** Status of the request below when the credential is accepted. */
  ok: number;
  /** A valid request for the route, without credentials. */
  request(): InjectOptions | Promise<InjectOptions>;
  /** Not in the OpenAPI document (schema.hide or a plugin's own route). */
  hidden?: true;
  /** The handler ends the caller's session, so user/admin tokens are minted for each case. */
  endsSession?: true;
  /** Cells where the handler, not the access level, decides (with the reason in a comment). */
  overrides?: Partial<Record<CredentialName, Outcome>>;
  /** Answers in GoTrue's error shape (/auth/v1): a rejected token is GoTrue's 403 bad_jwt. */
  gotrue?: true;
}

const unique = () => `matrix-${randomUUID()}@example.com`;
// Email routes are rate limited per IP; each request comes from an address of its own.
const someIp = () => `10.${Array.from({ length: 3 }, () => Math.floor(Math.random() * 256)).join('.')}`;
const wrongToken = 'f'.repeat(64);
const CHALLENGE = 'c'.repeat(43);
const CUSTOM_PROVIDER = {
  name: 'Matrix',
  discoveryEndpoint: 'https://idp.example.com/.well-known/openid-configuration',
  clientId: 'matrix',
  clientSecret: 'matrix-secret',
};
const secretKey = () => `MATRIX_${randomUUID().replaceAll('-', '').toUpperCase()}`;
const realtimePattern = () => `matrix:${randomUUID()}`;
const MATRIX_FUNCTION = 'export default () => new Response("matrix");';
const MATRIX_SCHEDULE = { name: 'Matrix schedule', cronSchedule: '0 3 * * *', functionSlug: 'matrix' };
/** Arranges state for a row with the API key; the answer does not matter. */
let migrationVersion = 0;
const nextVersion = () => String(++migrationVersion);
const asAdmin = (request: InjectOptions) => t.request({ ...request, headers: { 'x-api-key': t.apiKey } });

/** Waits until no database backup is running (one runs at a time; a second POST would be 409). */
async function backupsIdle() {
  await expect
    .poll(
      async () => {
        const { json } = await asAdmin({ method: 'GET', url: '/api/database/backups' });
        return json.backups.some((b: { status: string }) => b.status === 'running');
      },
      { timeout: 30_000, interval: 20 },
    )
    .toBe(false);
}

/**
 * A completed backup, made with the API key. Rows share one until a case deletes it (or a restore
 * takes it out of the catalog): a refused caller changes nothing, and a backup costs ~0.4 s.
 */
let sharedBackupId: string | undefined;
async function completedBackupId(): Promise<string> {
  await backupsIdle();
  const { json: listed } = await asAdmin({ method: 'GET', url: '/api/database/backups' });
  const shared = listed.backups.find((b: { id: string }) => b.id === sharedBackupId);
  if (shared?.status === 'completed') return shared.id;
  const { json } = await asAdmin({ method: 'POST', url: '/api/database/backups' });
  await backupsIdle();
  sharedBackupId = json.id;
  return json.id;
}

/** The archive of a completed backup, downloaded once (each import stores it as a new backup). */
let backupArchive: Promise<Buffer> | undefined;
const aBackupArchive = () => {
  backupArchive ??= completedBackupId().then(
    async (id) => (await asAdmin({ method: 'GET', url: `/api/database/backups/${id}/download` })).rawPayload,
  );
  return backupArchive;
};

/** A SAML IdP registration of its own (fresh entity id); one signing key for the whole file. */
let samlKey: Promise<IdpKey> | undefined;
async function samlProviderBody() {
  samlKey ??= makeIdpKey('Matrix IdP');
  const entityId = `https://idp.example/${randomUUID()}`;
  return { metadataXml: idpMetadataXml(entityId, `${entityId}/sso`, (await samlKey).certBody), domains: [] };
}

let matrixTables = 0;
const matrixTable = () => `matrix_table_${++matrixTables}`;
/** A new table made with the API key, for a row that reads, changes or drops one. */
const existingMatrixTable = async () => {
  const tableName = matrixTable();
  await asAdmin({ method: 'POST', url: '/api/database/tables', payload: { tableName, columns: [] } });
  return tableName;
};

/** A public bucket with one object, where a policy lets every request role write. */
let matrixBucket: Promise<string> | undefined;
const storageBucket = () =>
  (matrixBucket ??= (async () => {
    await asAdmin({ method: 'POST', url: '/api/storage/buckets', payload: { bucketName: 'matrix', isPublic: true } });
    await t.deps
      .sql`create policy matrix_write on storage.objects for all to anon, authenticated using (bucket = 'matrix') with check (bucket = 'matrix')`;
    await asAdmin({
      method: 'PUT',
      url: '/api/storage/buckets/matrix/objects/shared/readme.txt',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'text/plain' },
      payload: 'hi',
    });
    return 'matrix';
  })());

const routes: Row[] = [
  // Health, documentation and keys for verifying tokens.
  { route: 'GET /api/health', access: 'public', ok: 200, request: () => ({ method: 'GET', url: '/api/health' }) },
  {
    route: 'GET /api/health/ready',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/health/ready' }),
  },
  {
    route: 'GET /api/openapi.json',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/openapi.json' }),
  },
  {
    route: 'GET /api/reference',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference' }),
  },
  {
    route: 'GET /api/reference/json',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference/json' }),
  },
  {
    route: 'GET /api/reference/yaml',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference/yaml' }),
  },
  {
    route: 'GET /api/reference/static/index.html',
    access: 'public',
    ok: 302, // redirects to /api/reference/
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference/static/index.html' }),
  },
  {
    route: 'GET /api/reference/static/swagger-initializer.js',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference/static/swagger-initializer.js' }),
  },
  {
    route: 'GET /api/reference/static/*',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/api/reference/static/index.css' }),
  },
  // Agent docs (public) and MCP usage (admin).
  { route: 'GET /api/docs', access: 'public', ok: 200, request: () => ({ method: 'GET', url: '/api/docs' }) },
  {
    route: 'GET /api/docs/:topic',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/docs/instructions' }),
  },
  {
    route: 'GET /api/docs/:topic/:language',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/docs/db/typescript' }),
  },
  {
    route: 'POST /api/usage/mcp',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/usage/mcp', payload: { tool_name: 'matrix', success: true } }),
  },
  { route: 'GET /api/usage/mcp', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/usage/mcp' }) },
  // The web console (built by npm run build into dist/dashboard; 503 when it was not built).
  { route: 'GET /', access: 'public', ok: 302, hidden: true, request: () => ({ method: 'GET', url: '/' }) },
  {
    route: 'GET /dashboard',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/dashboard' }),
  },
  {
    route: 'GET /dashboard/*',
    access: 'public',
    ok: 200,
    hidden: true,
    request: () => ({ method: 'GET', url: '/dashboard/tables' }),
  },
  {
    route: 'OPTIONS *', // CORS preflight, for any path, including admin routes
    access: 'public',
    ok: 204,
    hidden: true,
    request: () => ({
      method: 'OPTIONS',
      url: '/api/auth/config',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    }),
  },
  {
    route: 'GET /.well-known/jwks.json',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/.well-known/jwks.json' }),
  },
  {
    route: 'GET /api/.well-known/jwks.json',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/.well-known/jwks.json' }),
  },

  // Users and profiles.
  {
    route: 'POST /api/auth/users',
    access: 'public',
    ok: 200,
    request: () => ({
      method: 'POST',
      url: '/api/auth/users?client_type=mobile',
      payload: { email: unique(), password: 'correct-horse-9' },
    }),
  },
  {
    route: 'GET /api/auth/profiles/:userId',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/profiles/${shared.user.id}` }),
  },
  {
    route: 'PATCH /api/auth/profiles/current',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/auth/profiles/current', payload: { profile: { matrix: true } } }),
    // The project admin has no profile.
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/users',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/users?limit=5' }),
  },
  {
    route: 'GET /api/auth/users/:userId',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/users/${shared.user.id}` }),
  },
  {
    route: 'DELETE /api/auth/users',
    access: 'admin',
    ok: 200,
    // Ids that do not exist: rows of this matrix must not delete each other's users.
    request: () => ({ method: 'DELETE', url: '/api/auth/users', payload: { userIds: [randomUUID()] } }),
  },
  {
    route: 'GET /api/auth/users/:userId/sessions',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/users/${shared.user.id}/sessions` }),
  },
  {
    route: 'DELETE /api/auth/users/:userId/sessions/:sessionId',
    access: 'admin',
    ok: 200,
    // A user of its own with a live session, so no other row's session ends.
    request: async () => {
      const { user, accessToken } = await t.signUp();
      const { sid } = decodePart(accessToken.split('.')[1]!) as { sid: string };
      return { method: 'DELETE', url: `/api/auth/users/${user.id}/sessions/${sid}` };
    },
  },
  {
    route: 'DELETE /api/auth/users/:userId/sessions',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'DELETE', url: `/api/auth/users/${(await t.signUp()).user.id}/sessions` }),
  },

  // User sessions.
  {
    route: 'POST /api/auth/sessions',
    access: 'public',
    ok: 200,
    request: () => ({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: { email: shared.user.email, password: shared.user.password },
    }),
  },
  {
    route: 'POST /api/auth/refresh',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: (await t.signUp()).refreshToken },
    }),
  },
  {
    route: 'POST /api/auth/logout',
    access: 'public',
    ok: 200,
    endsSession: true,
    request: () => ({ method: 'POST', url: '/api/auth/logout?client_type=mobile' }),
  },
  {
    route: 'GET /api/auth/sessions/current',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/sessions/current' }),
  },

  // Admin sessions.
  {
    route: 'POST /api/auth/admin/sessions',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/admin/sessions?client_type=server', payload: TEST_ADMIN }),
  },
  {
    route: 'GET /api/auth/admin/sessions/current',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/admin/sessions/current' }),
    // A user's token is an access token, but not the admin's.
    overrides: { 'user access token': 403 },
  },
  {
    route: 'POST /api/auth/admin/refresh',
    access: 'public',
    ok: 200,
    request: async () => {
      const signIn = await t.request({
        method: 'POST',
        url: '/api/auth/admin/sessions?client_type=server',
        payload: TEST_ADMIN,
      });
      return {
        method: 'POST',
        url: '/api/auth/admin/refresh?client_type=server',
        payload: { refreshToken: signIn.json.refreshToken },
      };
    },
  },
  {
    route: 'POST /api/auth/admin/logout',
    access: 'public',
    ok: 200,
    endsSession: true,
    request: () => ({ method: 'POST', url: '/api/auth/admin/logout' }),
  },

  // Authentication configuration.
  {
    route: 'GET /api/auth/public-config',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/public-config' }),
  },
  {
    route: 'GET /api/auth/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/config' }),
  },
  {
    route: 'PUT /api/auth/config',
    access: 'admin',
    ok: 200,
    // An empty update changes nothing and answers the current configuration.
    request: () => ({ method: 'PUT', url: '/api/auth/config', payload: {} }),
  },
  {
    route: 'GET /api/auth/rate-limits',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/rate-limits' }),
  },
  {
    route: 'PUT /api/auth/rate-limits',
    access: 'admin',
    ok: 200,
    // Restoring a default that is already in force changes nothing.
    request: () => ({
      method: 'PUT',
      url: '/api/auth/rate-limits',
      payload: { limits: [{ name: 'register:ip', reset: true }] },
    }),
  },

  // Email flows (public). Wrong codes and unknown tokens answer 400 to every caller alike.
  ...(['send-otp', 'send-verification', 'send-reset-password'] as const).map(
    (path): Row => ({
      route: `POST /api/auth/email/${path}`,
      access: 'public',
      ok: 202,
      request: () => ({
        method: 'POST',
        url: `/api/auth/email/${path}`,
        payload: { email: unique() },
        remoteAddress: someIp(),
      }),
    }),
  ),
  {
    route: 'POST /api/auth/email/verify',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/email/verify',
      payload: { email: unique(), otp: '000000' },
      remoteAddress: someIp(),
    }),
  },
  {
    route: 'POST /api/auth/email/exchange-reset-password-token',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/email/exchange-reset-password-token',
      payload: { email: unique(), code: '000000' },
      remoteAddress: someIp(),
    }),
  },
  {
    route: 'POST /api/auth/email/reset-password',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/email/reset-password',
      payload: { newPassword: 'a-new-password-1', otp: wrongToken },
      remoteAddress: someIp(),
    }),
  },
  ...(['verify-link', 'reset-password-link'] as const).map(
    (path): Row => ({
      route: `GET /api/auth/email/${path}`,
      access: 'public',
      ok: 400,
      request: () => ({ method: 'GET', url: `/api/auth/email/${path}?token=${wrongToken}` }),
    }),
  ),

  // Email delivery settings.
  {
    route: 'GET /api/auth/smtp-config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/smtp-config' }),
  },
  {
    route: 'PUT /api/auth/smtp-config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/auth/smtp-config', payload: { enabled: false } }),
  },
  {
    route: 'GET /api/auth/email-templates',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/email-templates' }),
  },
  {
    route: 'PUT /api/auth/email-templates/:type',
    access: 'admin',
    ok: 200,
    request: () => ({
      method: 'PUT',
      url: '/api/auth/email-templates/request-otp',
      payload: { subject: 'Code {{code}}', bodyHtml: '<p>{{code}}</p>' },
    }),
  },
  {
    route: 'POST /api/auth/smtp-config/test',
    access: 'admin',
    // No SMTP is configured here: an accepted caller gets 503 EMAIL_PROVIDER_NOT_CONFIGURED.
    ok: 503,
    request: () => ({ method: 'POST', url: '/api/auth/smtp-config/test', payload: { to: unique() } }),
  },
  {
    route: 'POST /api/auth/email-templates/:type/preview',
    access: 'admin',
    ok: 200,
    request: () => ({
      method: 'POST',
      url: '/api/auth/email-templates/request-otp/preview',
      payload: { subject: 'Code {{code}}' },
    }),
  },

  // Custom emails. No SMTP is configured here, so an accepted caller gets 503
  // EMAIL_PROVIDER_NOT_CONFIGURED; the anon key is refused by the route (reference: anon may not send).
  {
    route: 'POST /api/email/send-raw',
    access: 'client',
    ok: 503,
    overrides: { 'anon key': 401, 'user access token': 403 }, // users' sending is off by default
    request: () => ({
      method: 'POST',
      url: '/api/email/send-raw',
      payload: { to: unique(), subject: 'Matrix', html: '<p>matrix</p>' },
    }),
  },
  {
    route: 'GET /api/email/send-settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/email/send-settings' }),
  },
  {
    route: 'PUT /api/email/send-settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/email/send-settings', payload: { maxPerHour: 100 } }),
  },
  {
    route: 'GET /api/email/sends',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/email/sends?limit=10' }),
  },

  // OAuth sign-in (public). No provider is configured here, so initiation and ID-token sign-in
  // answer 404 to everyone; callbacks without a valid state and unknown svc_codes answer 400.
  {
    route: 'GET /api/auth/oauth/:provider',
    access: 'public',
    ok: 404,
    request: () => ({
      method: 'GET',
      url: `/api/auth/oauth/google?redirect_uri=https://app.example.com/cb&code_challenge=${CHALLENGE}`,
    }),
  },
  {
    route: 'GET /api/auth/oauth/custom/:key',
    access: 'public',
    ok: 404,
    request: () => ({
      method: 'GET',
      url: `/api/auth/oauth/custom/acme?redirect_uri=https://app.example.com/cb&code_challenge=${CHALLENGE}`,
    }),
  },
  {
    route: 'GET /api/auth/oauth/:provider/callback',
    access: 'public',
    ok: 400,
    request: () => ({ method: 'GET', url: '/api/auth/oauth/google/callback?code=c&state=forged' }),
  },
  {
    route: 'POST /api/auth/oauth/:provider/callback',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/oauth/apple/callback',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'code=c&state=forged',
    }),
  },
  {
    route: 'GET /api/auth/oauth/custom/:key/callback',
    access: 'public',
    ok: 400,
    request: () => ({ method: 'GET', url: '/api/auth/oauth/custom/acme/callback?code=c&state=forged' }),
  },
  {
    route: 'POST /api/auth/oauth/exchange',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/oauth/exchange',
      payload: { code: 'unknown', code_verifier: CHALLENGE },
    }),
  },

  // Anonymous users and linked identities (issue 34). The project admin has no identities.
  {
    route: 'POST /api/auth/anonymous',
    access: 'public',
    // Anonymous sign-ins are off by default.
    ok: 403,
    request: () => ({ method: 'POST', url: '/api/auth/anonymous?client_type=mobile', remoteAddress: someIp() }),
  },
  {
    route: 'POST /api/auth/identities/email',
    access: 'token',
    // The matrix user already has an email: only an anonymous user adds one.
    ok: 409,
    request: () => ({
      method: 'POST',
      url: '/api/auth/identities/email',
      payload: { email: unique(), password: 'pw-123456' },
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/anonymous/cleanup',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/anonymous/cleanup' }),
  },
  {
    route: 'GET /api/auth/identities',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/identities' }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'DELETE /api/auth/identities/:identityId',
    access: 'token',
    // An identity id the user does not have.
    ok: 404,
    request: () => ({ method: 'DELETE', url: `/api/auth/identities/${randomUUID()}` }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/users/:userId/identities',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/users/${shared.user.id}/identities` }),
  },
  {
    route: 'GET /api/auth/identities/oauth/:provider',
    access: 'token',
    ok: 404,
    request: () => ({
      method: 'GET',
      url: `/api/auth/identities/oauth/google?redirect_uri=https://app.example.com/cb&code_challenge=${CHALLENGE}`,
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/identities/oauth/custom/:key',
    access: 'token',
    ok: 404,
    request: () => ({
      method: 'GET',
      url: `/api/auth/identities/oauth/custom/acme?redirect_uri=https://app.example.com/cb&code_challenge=${CHALLENGE}`,
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/identities/oauth/exchange',
    access: 'token',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/identities/oauth/exchange',
      payload: { code: 'unknown', code_verifier: CHALLENGE },
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/id-token',
    access: 'public',
    ok: 404,
    request: () => ({
      method: 'POST',
      url: '/api/auth/id-token',
      payload: { provider: 'google', token: 'x.y.z' },
      remoteAddress: someIp(),
    }),
  },

  // OAuth provider settings (admin). Each request first puts the row in the state it needs.
  {
    route: 'GET /api/auth/oauth/configs',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/oauth/configs' }),
  },
  {
    route: 'POST /api/auth/oauth/configs',
    access: 'admin',
    ok: 201,
    request: async () => {
      await asAdmin({ method: 'DELETE', url: '/api/auth/oauth/discord/config' });
      return { method: 'POST', url: '/api/auth/oauth/configs', payload: { provider: 'discord', clientId: 'matrix' } };
    },
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/auth/oauth/:provider/config`,
      access: 'admin',
      ok: 200,
      request: async () => {
        await asAdmin({
          method: 'POST',
          url: '/api/auth/oauth/configs',
          payload: { provider: 'github', clientId: 'matrix' },
        });
        return {
          method,
          url: '/api/auth/oauth/github/config',
          ...(method === 'PUT' ? { payload: { scopes: ['read:user'] } } : {}),
        };
      },
    }),
  ),
  {
    route: 'GET /api/auth/oauth/custom/configs',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/oauth/custom/configs' }),
  },
  {
    route: 'POST /api/auth/oauth/custom/configs',
    access: 'admin',
    ok: 201,
    request: async () => {
      await asAdmin({ method: 'DELETE', url: '/api/auth/oauth/custom/matrix-new/config' });
      return {
        method: 'POST',
        url: '/api/auth/oauth/custom/configs',
        payload: { key: 'matrix-new', ...CUSTOM_PROVIDER },
      };
    },
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/auth/oauth/custom/:key/config`,
      access: 'admin',
      ok: 200,
      request: async () => {
        await asAdmin({
          method: 'POST',
          url: '/api/auth/oauth/custom/configs',
          payload: { key: 'matrix', ...CUSTOM_PROVIDER },
        });
        return {
          method,
          url: '/api/auth/oauth/custom/matrix/config',
          ...(method === 'PUT' ? { payload: { name: 'Matrix IdP' } } : {}),
        };
      },
    }),
  ),

  // SAML single sign-on. Public: no provider serves matrix.test (404); a forged RelayState is 400.
  // Admin: each request registers a provider of its own (a fresh entity id, no domains).
  {
    route: 'POST /api/auth/sso',
    access: 'public',
    ok: 404,
    request: () => ({
      method: 'POST',
      url: '/api/auth/sso',
      payload: { domain: 'matrix.test', redirect_uri: 'https://app.example.com/cb', code_challenge: CHALLENGE },
    }),
  },
  {
    route: 'GET /api/auth/sso/saml/metadata',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/sso/saml/metadata' }),
  },
  {
    route: 'POST /api/auth/sso/saml/acs',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/auth/sso/saml/acs',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'SAMLResponse=PHNhbWxwOlJlc3BvbnNlLz4%3D&RelayState=forged',
    }),
  },
  {
    route: 'GET /api/auth/sso/providers',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/sso/providers' }),
  },
  {
    route: 'POST /api/auth/sso/providers',
    access: 'admin',
    ok: 201,
    request: async () => ({ method: 'POST', url: '/api/auth/sso/providers', payload: await samlProviderBody() }),
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/auth/sso/providers/:id`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const created = await asAdmin({
          method: 'POST',
          url: '/api/auth/sso/providers',
          payload: await samlProviderBody(),
        });
        return {
          method,
          url: `/api/auth/sso/providers/${created.json.id}`,
          ...(method === 'PUT' ? { payload: { name: 'Matrix IdP' } } : {}),
        };
      },
    }),
  ),

  {
    route: 'POST /api/auth/sso/providers/:id/test',
    access: 'admin',
    ok: 200,
    request: async () => {
      const created = await asAdmin({
        method: 'POST',
        url: '/api/auth/sso/providers',
        payload: await samlProviderBody(),
      });
      return { method: 'POST', url: `/api/auth/sso/providers/${created.json.id}/test` };
    },
  },
  {
    route: 'GET /api/auth/sso/tests/:id',
    access: 'admin',
    ok: 200,
    request: async () => {
      const created = await asAdmin({
        method: 'POST',
        url: '/api/auth/sso/providers',
        payload: await samlProviderBody(),
      });
      const started = await asAdmin({ method: 'POST', url: `/api/auth/sso/providers/${created.json.id}/test` });
      return { method: 'GET', url: `/api/auth/sso/tests/${started.json.id}` };
    },
  },
  // Records: any credential reaches the pipeline (row-level security decides rows); an unknown
  // table answers 404 to every accepted caller alike.
  // (HEAD is covered with the other GET routes' HEAD checks.)
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/database/records/:table`,
      access: 'client',
      ok: 404,
      request: () => ({
        method,
        url: '/api/database/records/matrix_missing?id=eq.1',
        ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { payload: { id: 1 } } : {}),
      }),
    }),
  ),

  // The admin record editor (dashboard): the records pipeline behind admin access; an unknown
  // table answers 404 once the caller is the admin.
  ...(['GET', 'POST', 'PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/database/admin/tables/:table/records`,
      access: 'admin',
      ok: 404,
      request: () => ({
        method,
        url: '/api/database/admin/tables/matrix_missing/records?id=eq.1',
        ...(method === 'POST' || method === 'PATCH' ? { payload: { id: 1 } } : {}),
      }),
    }),
  ),

  // Function calls: any credential reaches the pipeline (row-level security applies inside the
  // function); an unknown function answers 404 to every accepted caller alike. Also under the
  // records path, where PostgREST clients send .rpc(). (HEAD is covered with the GET rows.)
  ...(['/api/database/rpc', '/api/database/records/rpc'] as const).flatMap((base) =>
    (['GET', 'POST'] as const).map(
      (method): Row => ({
        route: `${method} ${base}/:functionName`,
        access: 'client',
        ok: 404,
        request: () => ({ method, url: `${base}/matrix_missing`, ...(method === 'POST' ? { payload: {} } : {}) }),
      }),
    ),
  ),

  // Functions management (admin). The matrix app does not start the Deno runtime: writes are
  // stored and their deployment is pending.
  { route: 'GET /api/functions', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/functions' }) },
  {
    route: 'POST /api/functions',
    access: 'admin',
    ok: 201,
    request: async () => {
      await asAdmin({ method: 'DELETE', url: '/api/functions/matrix-new' });
      return { method: 'POST', url: '/api/functions', payload: { name: 'matrix-new', code: MATRIX_FUNCTION } };
    },
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/functions/:slug`,
      access: 'admin',
      ok: 200,
      request: async () => {
        await asAdmin({ method: 'POST', url: '/api/functions', payload: { name: 'matrix-fn', code: MATRIX_FUNCTION } });
        return {
          method,
          url: '/api/functions/matrix-fn',
          ...(method === 'PUT' ? { payload: { description: 'matrix' } } : {}),
        };
      },
    }),
  ),

  // Function invocation: the function (created with verifyJwt) needs any credential; with one,
  // the request goes on to the runtime, which is not running here: 502.
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /functions/*`,
      access: 'client',
      ok: 502,
      hidden: true,
      request: async () => {
        await asAdmin({
          method: 'POST',
          url: '/api/functions',
          payload: { name: 'matrix-invoke', code: MATRIX_FUNCTION },
        });
        return { method, url: '/functions/matrix-invoke', ...(method === 'GET' ? {} : { payload: 'any body' }) };
      },
    }),
  ),
  // The same at Supabase's path (supabase-js functions.invoke). A preflight carries no credential
  // and reaches the function (which answers CORS itself, as on Supabase): public, and 502 here.
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).map(
    (method): Row => ({
      route: `${method} /functions/v1/*`,
      access: method === 'OPTIONS' ? 'public' : 'client',
      ok: 502,
      hidden: true,
      request: async () => {
        await asAdmin({
          method: 'POST',
          url: '/api/functions',
          payload: { name: 'matrix-invoke', code: MATRIX_FUNCTION },
        });
        return {
          method,
          url: '/functions/v1/matrix-invoke',
          ...(method === 'GET' || method === 'OPTIONS' ? {} : { payload: 'any body' }),
        };
      },
    }),
  ),
  // Migrations (admin). Each accepted POST applies a version newer than the last.
  {
    route: 'GET /api/database/migrations',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/migrations' }),
  },
  {
    route: 'POST /api/database/migrations',
    access: 'admin',
    ok: 201,
    request: () => ({
      method: 'POST',
      url: '/api/database/migrations',
      payload: { version: nextVersion(), name: 'matrix', sql: 'select 1' },
    }),
  },
  {
    route: 'DELETE /api/database/migrations',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'DELETE', url: '/api/database/migrations' }),
  },
  {
    route: 'POST /api/database/migrations/dry-run',
    access: 'admin',
    ok: 200,
    request: () => ({
      method: 'POST',
      url: '/api/database/migrations/dry-run',
      payload: { sql: 'create table matrix_dry (id int)' },
    }),
  },
  // The SQL editor's saved snippets (admin); each request works on a snippet of its own.
  {
    route: 'GET /api/database/snippets',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/snippets' }),
  },
  {
    route: 'POST /api/database/snippets',
    access: 'admin',
    ok: 201,
    request: () => ({
      method: 'POST',
      url: '/api/database/snippets',
      payload: { name: `matrix ${randomUUID()}`, sql: 'select 1' },
    }),
  },
  ...(['PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/database/snippets/:id`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const { json } = await asAdmin({
          method: 'POST',
          url: '/api/database/snippets',
          payload: { name: `matrix ${randomUUID()}`, sql: 'select 1' },
        });
        return {
          method,
          url: `/api/database/snippets/${json.id}`,
          ...(method === 'PATCH' ? { payload: { sql: 'select 2' } } : {}),
        };
      },
    }),
  ),

  // Admin SQL, table names and database metadata.
  ...(['/api/database/advance/rawsql', '/api/database/advance/rawsql/unrestricted'] as const).map(
    (url): Row => ({
      route: `POST ${url}`,
      access: 'admin',
      ok: 200,
      request: () => ({ method: 'POST', url, payload: { query: 'select $1::int as n', params: [1] } }),
    }),
  ),
  {
    route: 'GET /api/database/tables',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/tables' }),
  },
  {
    route: 'GET /api/database/types',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/types?lang=typescript' }),
  },
  {
    route: 'GET /api/metadata/database',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/metadata/database' }),
  },
  // Table administration (admin); each request works on a table of its own.
  {
    route: 'POST /api/database/tables',
    access: 'admin',
    ok: 201,
    request: () => ({
      method: 'POST',
      url: '/api/database/tables',
      payload: { tableName: matrixTable(), columns: [{ columnName: 'note', type: 'string' }] },
    }),
  },
  {
    route: 'GET /api/database/tables/:tableName/schema',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/api/database/tables/${await existingMatrixTable()}/schema` }),
  },
  {
    route: 'PATCH /api/database/tables/:tableName/schema',
    access: 'admin',
    ok: 200,
    request: async () => ({
      method: 'PATCH',
      url: `/api/database/tables/${await existingMatrixTable()}/schema`,
      payload: { addColumns: [{ columnName: matrixTable(), type: 'integer' }] },
    }),
  },
  ...(['schemas', 'functions', 'indexes', 'policies', 'triggers'] as const).map(
    (what): Row => ({
      route: `GET /api/database/${what}`,
      access: 'admin',
      ok: 200,
      request: () => ({ method: 'GET', url: `/api/database/${what}${what === 'schemas' ? '' : '?schema=public'}` }),
    }),
  ),
  {
    route: 'POST /api/database/advance/export',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/database/advance/export', payload: { format: 'json', rowLimit: 1 } }),
  },
  {
    route: 'POST /api/database/advance/bulk-upsert',
    access: 'admin',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: '/api/database/advance/bulk-upsert',
      headers: { 'content-type': 'multipart/form-data; boundary=matrix' },
      payload: [
        '--matrix',
        'Content-Disposition: form-data; name="table"',
        '',
        await existingMatrixTable(),
        '--matrix',
        'Content-Disposition: form-data; name="file"; filename="rows.json"',
        'Content-Type: application/json',
        '',
        `{"id":"${randomUUID()}"}`,
        '--matrix--',
        '',
      ].join('\r\n'),
    }),
  },
  {
    route: 'GET /api/metadata',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/metadata?format=markdown' }),
  },
  {
    route: 'GET /api/metadata/:tableName',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/api/metadata/${await existingMatrixTable()}` }),
  },
  {
    route: 'DELETE /api/database/tables/:tableName',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'DELETE', url: `/api/database/tables/${await existingMatrixTable()}` }),
  },
  // Storage. Buckets are admin's; objects take any credential and row-level security decides
  // (the matrix bucket lets every role write, so each caller's upload succeeds).
  {
    route: 'GET /api/storage/buckets',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/storage/buckets' }),
  },
  {
    route: 'POST /api/storage/buckets',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/storage/buckets', payload: { bucketName: `m-${randomUUID()}` } }),
  },
  ...(['PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/storage/buckets/:bucket`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const bucketName = `m-${randomUUID()}`;
        await asAdmin({ method: 'POST', url: '/api/storage/buckets', payload: { bucketName } });
        return {
          method,
          url: `/api/storage/buckets/${bucketName}`,
          ...(method === 'PATCH' ? { payload: { isPublic: false } } : {}),
        };
      },
    }),
  ),
  {
    route: 'GET /api/storage/buckets/:bucket/objects',
    access: 'client',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/api/storage/buckets/${await storageBucket()}/objects` }),
  },
  {
    route: 'GET /api/storage/buckets/:bucket/objects/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'GET',
      url: `/api/storage/buckets/${await storageBucket()}/objects/shared/readme.txt`,
    }),
  },
  {
    route: 'GET /api/storage/buckets/:bucket/download-strategy/objects/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'GET',
      url: `/api/storage/buckets/${await storageBucket()}/download-strategy/objects/shared/readme.txt`,
    }),
  },
  {
    // The deprecated download-strategy form (public for a public bucket); the same route's
    // confirm-upload demands a credential itself (test/integration/storage/direct-uploads.test.ts).
    route: 'POST /api/storage/buckets/:bucket/objects/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/api/storage/buckets/${await storageBucket()}/objects/shared/readme.txt/download-strategy`,
      payload: {},
    }),
  },
  {
    route: 'PUT /api/storage/buckets/:bucket/objects/*',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'PUT',
      url: `/api/storage/buckets/${await storageBucket()}/objects/${randomUUID()}.txt`,
      headers: { 'content-type': 'text/plain' },
      payload: 'matrix',
    }),
  },
  {
    route: 'POST /api/storage/buckets/:bucket/objects',
    access: 'client',
    ok: 201,
    request: async () => ({
      method: 'POST',
      url: `/api/storage/buckets/${await storageBucket()}/objects`,
      headers: { 'content-type': 'text/plain' },
      payload: 'matrix',
    }),
  },
  {
    route: 'DELETE /api/storage/buckets/:bucket/objects/*',
    access: 'client',
    ok: 404, // an unknown key: rows must not delete each other's objects
    request: async () => ({
      method: 'DELETE',
      url: `/api/storage/buckets/${await storageBucket()}/objects/${randomUUID()}`,
    }),
  },
  {
    route: 'DELETE /api/storage/buckets/:bucket/objects',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'DELETE',
      url: `/api/storage/buckets/${await storageBucket()}/objects`,
      payload: { keys: [randomUUID()] },
    }),
  },
  {
    route: 'POST /api/storage/buckets/:bucket/upload-strategy',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/api/storage/buckets/${await storageBucket()}/upload-strategy`,
      payload: { filename: 'a.txt' },
    }),
  },
  {
    route: 'GET /api/storage/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/storage/config' }),
  },
  {
    route: 'PUT /api/storage/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/storage/config', payload: { maxFileSizeMb: 50 } }),
  },
  {
    route: 'GET /api/storage/s3/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/storage/s3/config' }),
  },
  {
    route: 'GET /api/storage/s3/access-keys',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/storage/s3/access-keys' }),
  },
  {
    route: 'POST /api/storage/s3/access-keys',
    access: 'admin',
    ok: 201,
    // Each accepted cell mints a key and deletes it, so the 50-key limit is never reached.
    request: async () => {
      const existing = await asAdmin({ method: 'GET', url: '/api/storage/s3/access-keys' });
      for (const key of existing.json as { id: string }[])
        await asAdmin({ method: 'DELETE', url: `/api/storage/s3/access-keys/${key.id}` });
      return { method: 'POST', url: '/api/storage/s3/access-keys', payload: { description: 'matrix' } };
    },
  },
  {
    route: 'DELETE /api/storage/s3/access-keys/:id',
    access: 'admin',
    ok: 204,
    request: async () => {
      const created = await asAdmin({ method: 'POST', url: '/api/storage/s3/access-keys', payload: {} });
      return { method: 'DELETE', url: `/api/storage/s3/access-keys/${created.json.id}` };
    },
  },
  // The S3 gateway verifies its own SigV4 signatures, ignoring Plinth credentials; on this
  // app's local-disk backend it answers 501 NotImplemented to everyone.
  ...(['/storage/v1/s3', '/storage/v1/s3/*'] as const).flatMap((path) =>
    (['GET', 'PUT', 'POST', 'DELETE'] as const).map(
      (method): Row => ({
        route: `${method} ${path}`,
        access: 'public',
        ok: 501,
        hidden: true,
        request: () => ({ method, url: path.replace('*', 'matrix/key.txt') }),
      }),
    ),
  ),

  // Platform keys.
  {
    route: 'GET /api/metadata/api-key',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/metadata/api-key' }),
  },
  {
    route: 'GET /api/metadata/anon-key',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/metadata/anon-key' }),
  },
  {
    route: 'POST /api/auth/tokens/anon',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/tokens/anon' }),
  },

  // Secrets (admin). Each request first creates the secret it needs, under a key of its own.
  { route: 'GET /api/secrets', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/secrets' }) },
  {
    route: 'POST /api/secrets',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/secrets', payload: { key: secretKey(), value: 'v' } }),
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/secrets/:key`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const key = secretKey();
        await asAdmin({ method: 'POST', url: '/api/secrets', payload: { key, value: 'v' } });
        return { method, url: `/api/secrets/${key}`, ...(method === 'PUT' ? { payload: { value: 'w' } } : {}) };
      },
    }),
  ),
  // Rotations keep the old key working for the grace period, so the other rows' keys stay valid.
  ...(['api-key', 'anon-key', 'signing-key'] as const).map(
    (path): Row => ({
      route: `POST /api/secrets/${path}/rotate`,
      access: 'admin',
      ok: 200,
      request: () => ({ method: 'POST', url: `/api/secrets/${path}/rotate`, payload: { gracePeriodHours: 24 } }),
    }),
  ),

  // Prometheus metrics: behind the API key (admin) by default (METRICS_ACCESS).
  { route: 'GET /metrics', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/metrics' }) },

  // Logs and audit (admin). Searches name filters that match nothing, so the answer is a whole
  // (200) page; the live tail gets a bad filter (400 after access), since a tail never ends.
  ...(
    [
      ['GET /api/logs/audits', '/api/logs/audits?actor=nobody'],
      ['GET /api/logs/audits/stats', '/api/logs/audits/stats?days=1'],
      ['GET /api/logs/sources', '/api/logs/sources'],
      ['GET /api/logs/search', '/api/logs/search?request_id=none'],
      ['GET /api/logs/retention', '/api/logs/retention'],
      ['GET /api/logs/writer', '/api/logs/writer'],
      ['GET /api/logs/:source', '/api/logs/requests?limit=1'],
    ] as const
  ).map(([route, url]): Row => ({ route, access: 'admin', ok: 200, request: () => ({ method: 'GET', url }) })),
  {
    route: 'GET /api/logs/stream',
    access: 'admin',
    ok: 400,
    request: () => ({ method: 'GET', url: '/api/logs/stream?level=loud' }),
  },
  {
    route: 'PATCH /api/logs/retention',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/logs/retention', payload: { requests: 7 } }),
  },

  // Database backups (admin). Rows that use one first make a completed backup with the API key.
  {
    route: 'GET /api/database/backups',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/backups' }),
  },
  {
    route: 'GET /api/database/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/database/config' }),
  },
  {
    route: 'PATCH /api/database/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/database/config', payload: { backup: { retentionDays: 7 } } }),
  },
  {
    route: 'POST /api/database/backups',
    access: 'admin',
    ok: 201,
    request: async () => {
      await backupsIdle();
      return { method: 'POST', url: '/api/database/backups', payload: {} };
    },
  },
  {
    route: 'POST /api/database/backups/import',
    access: 'admin',
    ok: 201,
    request: async () => ({
      method: 'POST',
      url: '/api/database/backups/import',
      headers: { 'content-type': 'application/gzip' },
      payload: await aBackupArchive(),
    }),
  },
  ...(
    [
      ['PATCH', '/api/database/backups/:id', 200],
      ['DELETE', '/api/database/backups/:id', 200],
      ['GET', '/api/database/backups/:id/download', 200],
      ['POST', '/api/database/backups/:id/restore', 200],
    ] as const
  ).map(
    ([method, path, ok]): Row => ({
      route: `${method} ${path}`,
      access: 'admin',
      ok,
      request: async () => ({
        method,
        url: path.replace(':id', await completedBackupId()),
        ...(method === 'PATCH' ? { payload: { name: null } } : {}),
      }),
    }),
  ),

  // Schedules (admin). Rows that read, change or delete one first create it with the API key.
  { route: 'GET /api/schedules', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/schedules' }) },
  {
    route: 'POST /api/schedules',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/schedules', payload: MATRIX_SCHEDULE }),
  },
  {
    route: 'GET /api/schedules/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/schedules/config' }),
  },
  {
    route: 'GET /api/schedules/preview',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/schedules/preview?cronSchedule=0%203%20*%20*%20*' }),
  },
  {
    route: 'PATCH /api/schedules/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/schedules/config', payload: { retentionDays: 7 } }),
  },
  ...(
    [
      ['GET', '/api/schedules/:id'],
      ['GET', '/api/schedules/:id/logs'],
      ['PATCH', '/api/schedules/:id'],
      ['DELETE', '/api/schedules/:id'],
      ['POST', '/api/schedules/:id/run'],
    ] as const
  ).map(
    ([method, path]): Row => ({
      route: `${method} ${path}`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const { json } = await asAdmin({ method: 'POST', url: '/api/schedules', payload: MATRIX_SCHEDULE });
        return {
          method,
          url: path.replace(':id', json.id),
          ...(method === 'PATCH' ? { payload: { isActive: false } } : {}),
        };
      },
    }),
  ),

  // AI provider key (admin).
  {
    route: 'GET /api/ai/:provider/api-key',
    access: 'admin',
    ok: 200,
    request: async () => {
      await asAdmin({ method: 'PUT', url: '/api/ai/openrouter/api-key', payload: { apiKey: 'sk-or-v1-matrix-key' } });
      return { method: 'GET', url: '/api/ai/openrouter/api-key' };
    },
  },
  {
    route: 'PUT /api/ai/:provider/api-key',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/ai/openrouter/api-key', payload: { apiKey: 'sk-or-v1-matrix-key' } }),
  },

  // AI gateway (any credential). No provider is reachable here, so each request carries a body
  // that fails validation: every accepted credential gets the same 400, before any upstream call
  // (the anon switch and budgets come after validation; test/integration/ai covers them).
  ...(['chat/completion', 'image/generation', 'embeddings'] as const).map(
    (path): Row => ({
      route: `POST /api/ai/${path}`,
      access: 'client',
      ok: 400,
      request: () => ({ method: 'POST', url: `/api/ai/${path}`, payload: {} }),
    }),
  ),
  // AI gateway credentials (admin); key rotation exists only for cloud-managed keys: 400 here.
  { route: 'GET /api/ai/config', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/ai/config' }) },
  {
    route: 'PUT /api/ai/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/ai/config', payload: { managementKey: 'sk-or-v1-matrix-management' } }),
  },
  {
    route: 'POST /api/ai/:provider/api-key/rotate',
    access: 'admin',
    ok: 400,
    request: () => ({ method: 'POST', url: '/api/ai/openrouter/api-key/rotate' }),
  },
  // The model catalogue (admin): the provider is unreachable here, so admins get its 503.
  { route: 'GET /api/ai/models', access: 'admin', ok: 503, request: () => ({ method: 'GET', url: '/api/ai/models' }) },
  // AI gateway settings and usage (admin).
  {
    route: 'GET /api/ai/settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/ai/settings' }),
  },
  {
    route: 'PUT /api/ai/settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/ai/settings', payload: { allowAnon: false } }),
  },
  { route: 'GET /api/ai/usage', access: 'admin', ok: 200, request: () => ({ method: 'GET', url: '/api/ai/usage' }) },

  // Payments (admin). No processor key is configured here: reads of the mirror answer 200,
  // unknown ids 404, and processor writes 400 PAYMENT_CONFIG_INVALID to every admin caller alike.
  ...(
    [
      ['GET /api/payments/status', 200, '/api/payments/status'],
      ['GET /api/payments/config', 200, '/api/payments/config'],
      [
        'PUT /api/payments/:environment/config',
        400,
        '/api/payments/test/config',
        { secretKey: 'sk_live_wrong_environment' },
      ],
      ['DELETE /api/payments/:environment/config', 404, '/api/payments/test/config'],
      ['POST /api/payments/:environment/webhook', 400, '/api/payments/test/webhook'],
      ['GET /api/payments/:environment/catalog', 200, '/api/payments/test/catalog'],
      ['GET /api/payments/:environment/catalog/products', 200, '/api/payments/test/catalog/products'],
      [
        'POST /api/payments/:environment/catalog/products',
        400,
        '/api/payments/test/catalog/products',
        { name: 'Matrix' },
      ],
      [
        'GET /api/payments/:environment/catalog/products/:productId',
        404,
        '/api/payments/test/catalog/products/prod_matrix',
      ],
      [
        'PATCH /api/payments/:environment/catalog/products/:productId',
        400,
        '/api/payments/test/catalog/products/prod_matrix',
        { name: 'M' },
      ],
      [
        'DELETE /api/payments/:environment/catalog/products/:productId',
        400,
        '/api/payments/test/catalog/products/prod_matrix',
      ],
      ['GET /api/payments/:environment/catalog/prices', 200, '/api/payments/test/catalog/prices'],
      [
        'POST /api/payments/:environment/catalog/prices',
        400,
        '/api/payments/test/catalog/prices',
        { processorProductId: 'prod_matrix', currency: 'usd', unitAmount: 1 },
      ],
      ['GET /api/payments/:environment/catalog/prices/:priceId', 404, '/api/payments/test/catalog/prices/price_matrix'],
      [
        'PATCH /api/payments/:environment/catalog/prices/:priceId',
        400,
        '/api/payments/test/catalog/prices/price_matrix',
        { active: false },
      ],
      [
        'DELETE /api/payments/:environment/catalog/prices/:priceId',
        400,
        '/api/payments/test/catalog/prices/price_matrix',
      ],
      ['GET /api/payments/:environment/subscriptions', 200, '/api/payments/test/subscriptions?limit=5'],
      ['GET /api/payments/:environment/customers', 200, '/api/payments/test/customers?limit=5'],
      ['GET /api/payments/:environment/payment-history', 200, '/api/payments/test/payment-history?limit=5'],
      [
        'GET /api/payments/:environment/transactions',
        200,
        '/api/payments/test/transactions?subjectType=user&subjectId=u',
      ],
      ['POST /api/payments/sync', 200, '/api/payments/sync'],
      ['POST /api/payments/:environment/sync', 400, '/api/payments/test/sync'],
    ] as const
  ).map(
    ([route, ok, url, payload]: readonly [string, number, string, object?]): Row => ({
      route,
      access: 'admin',
      ok,
      request: () => ({ method: route.split(' ')[0] as InjectOptions['method'], url, ...(payload ? { payload } : {}) }),
    }),
  ),
  // Billing pages for a subject. No customer is mapped here (404) and no processor key is set (400).
  {
    route: 'POST /api/payments/:environment/customer-portal-sessions',
    access: 'token',
    ok: 404,
    request: () => ({
      method: 'POST',
      url: '/api/payments/test/customer-portal-sessions',
      payload: { subject: { type: 'user', id: shared.user.id } },
    }),
  },
  {
    route: 'POST /api/payments/:environment/checkout-sessions',
    access: 'client',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/payments/test/checkout-sessions',
      payload: {
        mode: 'payment',
        lineItems: [{ processorPriceId: 'price_matrix' }],
        successUrl: 'https://a.example/ok',
        cancelUrl: 'https://a.example/no',
      },
    }),
    // Checkout is opened for a person (user token or anon key for guests), never with the API key.
    overrides: { 'API key as Bearer': 401, 'API key as x-api-key': 401 },
  },
  {
    // Authenticated by the processor's signature, not by a credential; no webhook secret is set here.
    route: 'POST /api/webhooks/processor/:environment',
    access: 'public',
    ok: 503,
    request: () => ({
      method: 'POST',
      url: '/api/webhooks/processor/test',
      headers: { 'stripe-signature': 't=1,v1=00' },
      payload: { id: 'evt_matrix' },
    }),
  },

  // Realtime admin (channels, messages, retention). Each request makes the channel it needs.
  {
    route: 'GET /api/realtime/channels',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/channels' }),
  },
  {
    route: 'POST /api/realtime/channels',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/realtime/channels', payload: { pattern: realtimePattern() } }),
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /api/realtime/channels/:id`,
      access: 'admin',
      ok: 200,
      request: async () => {
        const created = await asAdmin({
          method: 'POST',
          url: '/api/realtime/channels',
          payload: { pattern: realtimePattern() },
        });
        const url = `/api/realtime/channels/${created.json.id}`;
        return { method, url, ...(method === 'PUT' ? { payload: { enabled: false } } : {}) };
      },
    }),
  ),
  {
    route: 'GET /api/realtime/messages',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/messages' }),
  },
  {
    route: 'DELETE /api/realtime/messages',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'DELETE', url: '/api/realtime/messages' }),
  },
  {
    route: 'GET /api/realtime/messages/stats',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/messages/stats' }),
  },
  {
    route: 'GET /api/realtime/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/config' }),
  },
  {
    route: 'PATCH /api/realtime/config',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/realtime/config', payload: { retentionDays: null } }),
  },
  {
    route: 'GET /api/realtime/permissions',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/permissions' }),
  },
  {
    route: 'GET /api/realtime/watched-tables',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/watched-tables' }),
  },
  {
    route: 'POST /api/realtime/watched-tables',
    access: 'admin',
    ok: 201,
    request: async () => ({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      payload: { table: `public.${await existingMatrixTable()}` },
    }),
  },
  {
    route: 'DELETE /api/realtime/watched-tables/:table',
    access: 'admin',
    ok: 200,
    request: async () => {
      const table = `public.${await existingMatrixTable()}`;
      await asAdmin({ method: 'POST', url: '/api/realtime/watched-tables', payload: { table } });
      return { method: 'DELETE', url: `/api/realtime/watched-tables/${table}` };
    },
  },
  {
    route: 'GET /api/realtime/webhook-deliveries',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/webhook-deliveries' }),
  },
  {
    route: 'POST /api/realtime/webhook-deliveries/:id/retry',
    access: 'admin',
    ok: 200,
    request: async () => {
      const pattern = realtimePattern();
      await asAdmin({
        method: 'POST',
        url: '/api/realtime/channels',
        payload: { pattern, webhookUrls: ['http://127.0.0.1:9/matrix'] },
      });
      const [message] = await t.deps.sql`select realtime.publish(${pattern}, 'matrix', '{}'::jsonb) as id`;
      const [row] = await t.deps.sql`select id from realtime.webhook_deliveries where message_id = ${message!.id}`;
      return { method: 'POST', url: `/api/realtime/webhook-deliveries/${row!.id}/retry` };
    },
  },

  // Multi-factor authentication (issue 34). The user routes are for users: an admin token is 403.
  {
    route: 'GET /api/auth/mfa/factors',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/mfa/factors' }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/mfa/factors',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/mfa/factors', payload: { friendlyName: `m-${randomUUID()}` } }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/mfa/factors/:factorId/challenge',
    access: 'token',
    // An unknown factor is the handler's 404 (the shared user may hold at most ten factors).
    ok: 404,
    request: () => ({ method: 'POST', url: `/api/auth/mfa/factors/${randomUUID()}/challenge` }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/mfa/factors/:factorId/verify',
    access: 'token',
    // Accepted credentials reach the handler: an unknown factor is its 404.
    ok: 404,
    request: () => ({
      method: 'POST',
      url: `/api/auth/mfa/factors/${randomUUID()}/verify`,
      payload: { challengeId: randomUUID(), code: '123456' },
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'DELETE /api/auth/mfa/factors/:factorId',
    access: 'token',
    // An unknown factor is the handler's 404 (a factor of the shared user would be gone after one case).
    ok: 404,
    request: () => ({ method: 'DELETE', url: `/api/auth/mfa/factors/${randomUUID()}` }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/mfa/recovery',
    access: 'token',
    // The shared user has no recovery codes: a wrong code is the handler's 400.
    ok: 400,
    request: () => ({ method: 'POST', url: '/api/auth/mfa/recovery', payload: { code: 'abcde-fghij' } }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/mfa/recovery-codes',
    access: 'token',
    // The shared user's session is aal1: the handler answers 403 AUTH_INSUFFICIENT_AAL.
    ok: 403,
    request: () => ({ method: 'POST', url: '/api/auth/mfa/recovery-codes' }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/users/:userId/factors',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/users/${shared.user.id}/factors` }),
  },
  {
    route: 'DELETE /api/auth/users/:userId/factors/:factorId',
    access: 'admin',
    ok: 200,
    request: async () => {
      const { user, accessToken } = await t.signUp();
      const enrolled = await t.request({
        method: 'POST',
        url: '/api/auth/mfa/factors',
        headers: bearer(accessToken),
        payload: {},
      });
      return { method: 'DELETE', url: `/api/auth/users/${user.id}/factors/${enrolled.json.id}` };
    },
  },
  {
    route: 'GET /api/auth/mfa/settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/mfa/settings' }),
  },
  {
    route: 'PUT /api/auth/mfa/settings',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/auth/mfa/settings', payload: { requireAdminMfa: false } }),
  },
  {
    route: 'GET /api/auth/admin/mfa/factors',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/admin/mfa/factors' }),
  },
  {
    route: 'POST /api/auth/admin/mfa/factors',
    access: 'admin',
    ok: 200,
    request: () => ({
      method: 'POST',
      url: '/api/auth/admin/mfa/factors',
      payload: { friendlyName: `m-${randomUUID()}` },
    }),
  },
  {
    route: 'POST /api/auth/admin/mfa/factors/:factorId/verify',
    access: 'admin',
    // An unknown factor is the handler's 404.
    ok: 404,
    request: () => ({
      method: 'POST',
      url: `/api/auth/admin/mfa/factors/${randomUUID()}/verify`,
      payload: { totpCode: '123456' },
    }),
  },
  {
    route: 'DELETE /api/auth/admin/mfa/factors/:factorId',
    access: 'admin',
    // An unknown factor is the handler's 404 (the admin may hold at most ten factors).
    ok: 404,
    request: () => ({ method: 'DELETE', url: `/api/auth/admin/mfa/factors/${randomUUID()}` }),
  },

  // Supabase's /rest/v1 (issue 35): the records and function-call handlers at PostgREST's paths;
  // any credential reaches the pipeline, an unknown table or function answers 404 alike.
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      route: `${method} /rest/v1/:table`,
      access: 'client',
      ok: 404,
      request: () => ({
        method,
        url: '/rest/v1/matrix_missing?id=eq.1',
        ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { payload: { id: 1 } } : {}),
      }),
    }),
  ),
  ...(['GET', 'POST'] as const).map(
    (method): Row => ({
      route: `${method} /rest/v1/rpc/:functionName`,
      access: 'client',
      ok: 404,
      request: () => ({ method, url: '/rest/v1/rpc/matrix_missing', ...(method === 'POST' ? { payload: {} } : {}) }),
    }),
  ),
  // Supabase Realtime's REST broadcast: declared public so supabase-js's lone `apikey` header can
  // stand for the credential (src/modules/supabase/realtime/caller.ts); every credential sent
  // here is judged exactly as a client route judges it.
  {
    route: 'POST /realtime/v1/api/broadcast',
    access: 'client',
    ok: 202,
    request: () => ({
      method: 'POST',
      url: '/realtime/v1/api/broadcast',
      payload: { messages: [{ topic: 'matrix', event: 'e', payload: {} }] },
    }),
  },
  {
    route: 'POST /realtime/v1/api/broadcast/:topic/events/:event',
    access: 'client',
    ok: 202,
    request: () => ({ method: 'POST', url: '/realtime/v1/api/broadcast/matrix/events/e', payload: { n: 1 } }),
  },
  // Passkeys (WebAuthn). The project admin has no passkeys of its own (403 from the handler).
  {
    route: 'POST /api/auth/passkeys/registration-options',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/passkeys/registration-options', payload: {} }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/passkeys',
    access: 'token',
    ok: 200,
    request: async () => ({ method: 'POST', url: '/api/auth/passkeys', payload: await matrixPasskeyRegistration() }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/passkeys',
    access: 'token',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/passkeys' }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'PATCH /api/auth/passkeys/:id',
    access: 'token',
    ok: 200,
    request: async () => ({
      method: 'PATCH',
      url: `/api/auth/passkeys/${(await matrixPasskey()).passkeyId}`,
      payload: { name: 'Renamed' },
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'DELETE /api/auth/passkeys/:id',
    access: 'token',
    ok: 200,
    request: async () => ({ method: 'DELETE', url: `/api/auth/passkeys/${(await matrixPasskey()).passkeyId}` }),
    // Removing a passkey needs aal2 (passkeys.test.ts removes one at aal2).
    overrides: { 'admin access token': 403, 'user access token': 'aal2' },
  },
  {
    route: 'POST /api/auth/passkeys/sign-in-options',
    access: 'public',
    ok: 200,
    request: () => ({ method: 'POST', url: '/api/auth/passkeys/sign-in-options', remoteAddress: someIp() }),
  },
  {
    route: 'POST /api/auth/passkeys/sign-in',
    access: 'public',
    ok: 200,
    request: async () => {
      const { authenticator } = await matrixPasskey();
      const options = await t.request({
        method: 'POST',
        url: '/api/auth/passkeys/sign-in-options',
        remoteAddress: someIp(),
      });
      return {
        method: 'POST',
        url: '/api/auth/passkeys/sign-in?client_type=mobile',
        payload: { challengeId: options.json.challengeId, credential: authenticator.get(options.json.options) },
      };
    },
  },
  {
    route: 'POST /api/auth/passkeys/assurance-options',
    access: 'token',
    ok: 200,
    // The shared user has passkeys once the rows above ran; one of its own makes the row stand alone.
    request: async () => {
      await matrixPasskey();
      return { method: 'POST', url: '/api/auth/passkeys/assurance-options' };
    },
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'POST /api/auth/passkeys/assurance',
    access: 'token',
    ok: 400,
    // A well-formed answer to a challenge that does not exist: the handler's 400 shows access was granted.
    request: () => ({
      method: 'POST',
      url: '/api/auth/passkeys/assurance?client_type=mobile',
      payload: {
        challengeId: randomUUID(),
        credential: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          clientExtensionResults: {},
          response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
        },
      },
    }),
    overrides: { 'admin access token': 403 },
  },
  {
    route: 'GET /api/auth/passkeys/relying-party',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/auth/passkeys/relying-party' }),
  },
  {
    route: 'GET /api/auth/users/:userId/passkeys',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: `/api/auth/users/${shared.user.id}/passkeys` }),
  },
  {
    route: 'DELETE /api/auth/users/:userId/passkeys/:id',
    access: 'admin',
    ok: 200,
    request: async () => ({
      method: 'DELETE',
      url: `/api/auth/users/${shared.user.id}/passkeys/${(await matrixPasskey()).passkeyId}`,
    }),
  },

  // Razorpay (issue 36, slice rzp). No Razorpay keys are stored here: the client's calls that
  // reach Razorpay answer 400 PAYMENT_CONFIG_NOT_FOUND, subscription management finds no row
  // (404), and admin writes stop before any network call. The API key has no user: 401 on the
  // client's calls.
  ...(
    [
      ['orders', { amount: 1000, currency: 'INR' }],
      ['orders/verify', { orderId: 'order_matrix', paymentId: 'pay_matrix', signature: 'f'.repeat(64) }],
      ['subscriptions/verify', { subscriptionId: 'sub_matrix', paymentId: 'pay_matrix', signature: 'f'.repeat(64) }],
    ] as const
  ).map(
    ([path, payload]): Row => ({
      route: `POST /api/payments/razorpay/:environment/${path}`,
      access: 'client',
      ok: 400,
      request: () => ({ method: 'POST', url: `/api/payments/razorpay/test/${path}`, payload }),
      overrides: { 'API key as Bearer': 401, 'API key as x-api-key': 401 },
    }),
  ),
  {
    route: 'POST /api/payments/razorpay/:environment/subscriptions',
    access: 'token',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/payments/razorpay/test/subscriptions',
      payload: { planId: 'plan_matrix', totalCount: 3, subject: { type: 'user', id: shared.user.id } },
    }),
  },
  ...(['cancel', 'pause', 'resume'] as const).map(
    (action): Row => ({
      route: `POST /api/payments/razorpay/:environment/subscriptions/:subscriptionId/${action}`,
      access: 'token',
      ok: 404,
      request: () => ({
        method: 'POST',
        url: `/api/payments/razorpay/test/subscriptions/sub_matrix/${action}`,
        payload: {},
      }),
    }),
  ),
  ...(
    [
      ['GET /api/payments/razorpay/status', 200, '/api/payments/razorpay/status'],
      ['GET /api/payments/razorpay/config', 200, '/api/payments/razorpay/config'],
      ['POST /api/payments/razorpay/sync', 200, '/api/payments/razorpay/sync'],
      [
        'PUT /api/payments/razorpay/:environment/config',
        400,
        '/api/payments/razorpay/test/config',
        { keyId: 'rzp_live_matrix', keySecret: 'matrix' },
      ],
      ['DELETE /api/payments/razorpay/:environment/config', 404, '/api/payments/razorpay/test/config'],
      ['POST /api/payments/razorpay/:environment/sync', 400, '/api/payments/razorpay/test/sync'],
      ['GET /api/payments/razorpay/:environment/webhook', 404, '/api/payments/razorpay/test/webhook'],
      [
        'POST /api/payments/razorpay/:environment/webhook/rotate-secret',
        400,
        '/api/payments/razorpay/test/webhook/rotate-secret',
      ],
      ['GET /api/payments/razorpay/:environment/catalog', 200, '/api/payments/razorpay/test/catalog'],
      [
        'POST /api/payments/razorpay/:environment/catalog/items',
        400,
        '/api/payments/razorpay/test/catalog/items',
        { name: 'Matrix', amount: 100, currency: 'INR' },
      ],
      [
        'PATCH /api/payments/razorpay/:environment/catalog/items/:itemId',
        400,
        '/api/payments/razorpay/test/catalog/items/item_matrix',
        { active: false },
      ],
      [
        'POST /api/payments/razorpay/:environment/catalog/plans',
        400,
        '/api/payments/razorpay/test/catalog/plans',
        { period: 'monthly', interval: 1, item: { name: 'Matrix', amount: 100, currency: 'INR' } },
      ],
      ['GET /api/payments/razorpay/:environment/customers', 200, '/api/payments/razorpay/test/customers?limit=5'],
      ['GET /api/payments/razorpay/:environment/transactions', 200, '/api/payments/razorpay/test/transactions?limit=5'],
      [
        'GET /api/payments/razorpay/:environment/subscriptions',
        200,
        '/api/payments/razorpay/test/subscriptions?limit=5',
      ],
    ] as const
  ).map(
    ([route, ok, url, payload]: readonly [string, number, string, object?]): Row => ({
      route,
      access: 'admin',
      ok,
      request: () => ({ method: route.split(' ')[0] as InjectOptions['method'], url, ...(payload ? { payload } : {}) }),
    }),
  ),
  {
    // Authenticated by Razorpay's signature, not by a credential; no webhook secret is stored here.
    route: 'POST /api/webhooks/razorpay/:environment',
    access: 'public',
    ok: 400,
    request: () => ({
      method: 'POST',
      url: '/api/webhooks/razorpay/test',
      headers: { 'x-razorpay-signature': 'f'.repeat(64) },
      payload: { event: 'payment.captured', payload: {} },
    }),
  },
  // Sites (issue 36, br-sites): the deployments API is the admin's; the legacy zip upload is
  // public and allowed by the signed token its create call answered.
  {
    route: 'POST /api/deployments',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/deployments' }),
  },
  {
    route: 'POST /api/deployments/direct',
    access: 'admin',
    ok: 201,
    request: () => ({ method: 'POST', url: '/api/deployments/direct', payload: { files: [siteFile(randomUUID())] } }),
  },
  {
    route: 'PUT /api/deployments/:id/files/:fileId/content',
    access: 'admin',
    ok: 200,
    request: async () => {
      const content = randomUUID();
      const created = await asAdmin({
        method: 'POST',
        url: '/api/deployments/direct',
        payload: { files: [siteFile(content)] },
      });
      return {
        method: 'PUT',
        url: `/api/deployments/${created.json.id}/files/${created.json.files[0].fileId}/content`,
        headers: { 'content-type': 'application/octet-stream' },
        payload: Buffer.from(content),
      };
    },
  },
  {
    route: 'POST /api/deployments/:id/source',
    access: 'public',
    ok: 204,
    request: async () => {
      const created = await asAdmin({ method: 'POST', url: '/api/deployments' });
      const zip = '--matrix\r\ncontent-disposition: form-data; name="token"\r\n\r\n';
      return {
        method: 'POST',
        url: `/api/deployments/${created.json.id}/source`,
        headers: { 'content-type': 'multipart/form-data; boundary=matrix' },
        payload: `${zip}${created.json.uploadFields.token}\r\n--matrix\r\ncontent-disposition: form-data; name="file"; filename="d.zip"\r\n\r\nPK\r\n--matrix--\r\n`,
      };
    },
  },
  {
    route: 'POST /api/deployments/:id/start',
    access: 'admin',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/api/deployments/${await siteDeployment(false)}/start`,
      payload: {},
    }),
  },
  {
    route: 'POST /api/deployments/:id/promote',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'POST', url: `/api/deployments/${await siteDeployment(true)}/promote` }),
  },
  {
    route: 'GET /api/deployments',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/deployments?limit=1000' }),
  },
  {
    route: 'GET /api/deployments/:id',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/api/deployments/${await siteDeployment(true)}` }),
  },
  {
    route: 'GET /api/deployments/:id/logs',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/api/deployments/${await siteDeployment(true)}/logs` }),
  },
  {
    route: 'GET /api/deployments/metadata',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/deployments/metadata' }),
  },
  {
    route: 'GET /api/deployments/site',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/deployments/site' }),
  },
  {
    route: 'PATCH /api/deployments/site',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PATCH', url: '/api/deployments/site', payload: { spaFallback: false } }),
  },
  {
    route: 'PUT /api/deployments/slug',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'PUT', url: '/api/deployments/slug', payload: { slug: 'app' } }),
  },
  {
    route: 'GET /api/deployments/domains',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/deployments/domains' }),
  },
  {
    route: 'POST /api/deployments/domains',
    access: 'admin',
    ok: 201,
    request: () => ({
      method: 'POST',
      url: '/api/deployments/domains',
      payload: { domain: `m${randomUUID().slice(0, 8)}.example.com` },
    }),
  },
  {
    route: 'POST /api/deployments/domains/:domain/verify',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'POST', url: `/api/deployments/domains/${await siteDomain()}/verify` }),
  },
  {
    route: 'DELETE /api/deployments/domains/:domain',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'DELETE', url: `/api/deployments/domains/${await siteDomain()}` }),
  },
  // Resumable uploads (tus 1.0), issue 37 part 2 (br-tus): Plinth's path and Supabase's. Creation
  // needs any credential (row-level security decides, here the matrix bucket's policy lets every
  // role write); an upload id nobody created is 404 to every caller; discovery is public.
  ...['/api/storage/uploads/resumable', '/storage/v1/upload/resumable'].flatMap((path): Row[] => {
    const tusHeaders = { 'tus-resumable': '1.0.0' };
    const unknown = () => `${path}/${randomUUID()}`;
    return [
      {
        route: `POST ${path}`,
        access: 'client',
        ok: 201,
        hidden: true,
        request: async () => ({
          method: 'POST',
          url: path,
          headers: {
            ...tusHeaders,
            'upload-length': '5',
            'upload-metadata': `bucketName ${Buffer.from(await storageBucket()).toString('base64')},objectName ${Buffer.from(`tus/${randomUUID()}`).toString('base64')}`,
          },
        }),
      },
      {
        route: `OPTIONS ${path}`,
        access: 'public',
        ok: 204,
        hidden: true,
        request: () => ({ method: 'OPTIONS', url: path }),
      },
      {
        route: `OPTIONS ${path}/:id`,
        access: 'public',
        ok: 204,
        hidden: true,
        request: () => ({ method: 'OPTIONS', url: unknown() }),
      },
      {
        route: `HEAD ${path}/:id`,
        access: 'client',
        ok: 404,
        hidden: true,
        request: () => ({ method: 'HEAD', url: unknown(), headers: tusHeaders }),
      },
      {
        route: `PATCH ${path}/:id`,
        access: 'client',
        ok: 404,
        hidden: true,
        request: () => ({
          method: 'PATCH',
          url: unknown(),
          headers: { ...tusHeaders, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
          payload: 'bytes',
        }),
      },
      {
        route: `DELETE ${path}/:id`,
        access: 'client',
        ok: 404,
        hidden: true,
        request: () => ({ method: 'DELETE', url: unknown(), headers: tusHeaders }),
      },
    ];
  }),
  // Image transformations (issue 37, slice img): Supabase's render paths check access as their
  // /object/ twins (authenticated: any credential, row-level security decides; public: a public
  // bucket; sign: a token covering the transformation). Plinth's own transformations ride on
  // GET /api/storage/buckets/:bucket/objects/* (row above). Hidden like the rest of /storage/v1.
  ...(
    [
      ['authenticated', 'client', async () => '?width=8'],
      ['public', 'public', async () => '?width=8'],
      ['sign', 'public', async () => (await matrixRenderSigned()).search],
    ] as const
  ).map(
    ([kind, access, query]): Row => ({
      route: `GET /storage/v1/render/image/${kind}/:bucket/*`,
      access,
      ok: 200,
      hidden: true,
      request: async () => ({
        method: 'GET',
        url: `/storage/v1/render/image/${kind}/${await matrixImage()}${await query()}`,
      }),
    }),
  ), // Insights (issue 40): the console's charts, admin only.
  ...['traffic', 'functions', 'realtime', 'auth', 'sizes', 'tables'].map(
    (family): Row => ({
      route: `GET /api/insights/${family}`,
      access: 'admin',
      ok: 200,
      request: () => ({ method: 'GET', url: `/api/insights/${family}` }),
    }),
  ),
  // Upgrades (issue 39 part B, br-39up): the platform migrations the database has applied, for
  // `plinth upgrade check`.
  {
    route: 'GET /api/health/platform-migrations',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/health/platform-migrations' }),
  },
  // Issue 38 part D (br-38d): realtime change capture status.
  {
    route: 'GET /api/realtime/change-capture',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/realtime/change-capture' }),
  },
  // Issues 39/40 (br-h4): the AI screen's usage per caller.
  {
    route: 'GET /api/ai/usage/callers',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'GET', url: '/api/ai/usage/callers' }),
  },
];

// Sites (issue 36, br-sites): a manifest entry, a deployment (waiting with every file uploaded,
// or READY), and a custom domain, each made fresh by the admin.
function siteFile(content: string) {
  return {
    path: 'index.html',
    sha: createHash('sha1').update(content).digest('hex'),
    size: Buffer.byteLength(content),
  };
}
async function siteDeployment(ready: boolean): Promise<string> {
  const content = `<title>${randomUUID()}</title>`;
  const created = await asAdmin({
    method: 'POST',
    url: '/api/deployments/direct',
    payload: { files: [siteFile(content)] },
  });
  await t.request({
    method: 'PUT',
    url: `/api/deployments/${created.json.id}/files/${created.json.files[0].fileId}/content`,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/octet-stream' },
    payload: Buffer.from(content),
  });
  if (ready) await asAdmin({ method: 'POST', url: `/api/deployments/${created.json.id}/start`, payload: {} });
  return created.json.id;
}
async function siteDomain(): Promise<string> {
  const domain = `d${randomUUID().slice(0, 8)}.example.com`;
  await asAdmin({ method: 'POST', url: '/api/deployments/domains', payload: { domain } });
  return domain;
}

/** `matrix/shared/pixel.png`: a small PNG in the matrix bucket, for the image transformation rows. */
let matrixPng: Promise<string> | undefined;
const matrixImage = () =>
  (matrixPng ??= (async () => {
    const bucket = await storageBucket();
    await asAdmin({
      method: 'PUT',
      url: `/api/storage/buckets/${bucket}/objects/shared/pixel.png`,
      headers: { 'x-api-key': t.apiKey, 'content-type': 'image/png' },
      payload: await twoTonePng(16, 16),
    });
    return `${bucket}/shared/pixel.png`;
  })());
/** A signed render URL of the matrix image at width 8 (its query: token and transformation). */
const matrixRenderSigned = async () => {
  const res = await asAdmin({
    method: 'POST',
    url: `/storage/v1/object/sign/${await matrixImage()}`,
    payload: { expiresIn: 3600, transform: { width: 8 } },
  });
  return new URL(`http://x/storage/v1${res.json.signedURL}`);
};

/** The shared user's answer to fresh registration options, from a software authenticator. */
async function matrixPasskeyRegistration(authenticator = new SoftAuthenticator(new URL(t.config.apiBaseUrl).origin)) {
  const options = await t.request({
    method: 'POST',
    url: '/api/auth/passkeys/registration-options',
    headers: bearer(await matrixUserToken()),
    payload: {},
  });
  return { challengeId: options.json.challengeId, credential: authenticator.create(options.json.options).json };
}

/**
 * A fresh aal2 access token of the shared user, for arranging passkey rows (a new passkey needs
 * aal2 once the user has one): signed in with the user's first passkey, registered at aal1 on the
 * first call, before the user had any second factor.
 */
async function matrixUserToken(): Promise<string> {
  setupPasskey ??= registerFirstPasskey();
  const authenticator = await setupPasskey;
  const options = await t.request({
    method: 'POST',
    url: '/api/auth/passkeys/sign-in-options',
    remoteAddress: someIp(),
  });
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/passkeys/sign-in?client_type=mobile',
    payload: { challengeId: options.json.challengeId, credential: authenticator.get(options.json.options) },
  });
  return res.json.accessToken;
}

let setupPasskey: Promise<SoftAuthenticator> | undefined;
async function registerFirstPasskey(): Promise<SoftAuthenticator> {
  const signedIn = await t.request({
    method: 'POST',
    url: '/api/auth/sessions?client_type=mobile',
    payload: { email: shared.user.email, password: shared.user.password },
  });
  const headers = bearer(signedIn.json.accessToken);
  const authenticator = new SoftAuthenticator(new URL(t.config.apiBaseUrl).origin);
  const options = await t.request({
    method: 'POST',
    url: '/api/auth/passkeys/registration-options',
    headers,
    payload: {},
  });
  const credential = authenticator.create(options.json.options).json;
  await t.request({
    method: 'POST',
    url: '/api/auth/passkeys',
    headers,
    payload: { challengeId: options.json.challengeId, credential },
  });
  return authenticator;
}

/** A passkey of the shared user, registered with the user's token (a new one per row). */
async function matrixPasskey() {
  const authenticator = new SoftAuthenticator(new URL(t.config.apiBaseUrl).origin);
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/passkeys',
    headers: bearer(await matrixUserToken()),
    payload: await matrixPasskeyRegistration(authenticator),
  });
  return { authenticator, passkeyId: res.json.id as string };
}

// The payments routes again under /api/payments/stripe/… (the path the official client calls),
// hidden from the API documentation.
routes.push(
  ...routes
    .filter((r) => r.route.includes(' /api/payments/') && !r.route.includes(' /api/payments/razorpay/'))
    .map(
      (r): Row => ({
        ...r,
        route: r.route.replace(' /api/payments/', ' /api/payments/stripe/'),
        hidden: true,
        request: async () => {
          const request = await r.request();
          return { ...request, url: String(request.url).replace('/api/payments/', '/api/payments/stripe/') };
        },
      }),
    ),
);

// Supabase storage at /storage/v1 (modules/supabase/storage): buckets are read with any
// credential and changed by admins; objects take any credential and row-level security decides
// (the matrix bucket lets every role write); public and signed URLs need none. Hidden from the
// API documentation (docs/supabase-storage.md describes them).
const sbObject = async (prefix: string) => {
  const key = `${prefix}-${randomUUID()}.txt`;
  await asAdmin({
    method: 'PUT',
    url: `/api/storage/buckets/${await storageBucket()}/objects/${key}`,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'text/plain' },
    payload: 'sb',
  });
  return key;
};
const sbBucket = async () => {
  const id = `sb-${randomUUID()}`;
  await asAdmin({ method: 'POST', url: '/storage/v1/bucket', payload: { id, name: id } });
  return id;
};
const sbSigned = async (path: string) => {
  const res = await asAdmin({ method: 'POST', url: path, payload: { expiresIn: 60 } });
  return (res.json.signedURL ?? res.json.url) as string;
};
const sbRows: Row[] = [
  {
    route: 'GET /storage/v1/bucket',
    access: 'client',
    ok: 200,
    request: () => ({ method: 'GET', url: '/storage/v1/bucket' }),
  },
  {
    route: 'GET /storage/v1/bucket/:id',
    access: 'client',
    ok: 200,
    request: async () => ({ method: 'GET', url: `/storage/v1/bucket/${await storageBucket()}` }),
  },
  {
    route: 'POST /storage/v1/bucket',
    access: 'admin',
    ok: 200,
    request: () => ({ method: 'POST', url: '/storage/v1/bucket', payload: { id: `sb-${randomUUID()}` } }),
  },
  {
    route: 'PUT /storage/v1/bucket/:id',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'PUT', url: `/storage/v1/bucket/${await sbBucket()}`, payload: { public: true } }),
  },
  {
    route: 'POST /storage/v1/bucket/:id/empty',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'POST', url: `/storage/v1/bucket/${await sbBucket()}/empty` }),
  },
  {
    route: 'DELETE /storage/v1/bucket/:id',
    access: 'admin',
    ok: 200,
    request: async () => ({ method: 'DELETE', url: `/storage/v1/bucket/${await sbBucket()}` }),
  },
  ...[
    '/storage/v1/object/:bucket/*',
    '/storage/v1/object/authenticated/:bucket/*',
    '/storage/v1/object/info/:bucket/*',
  ].map(
    (pattern): Row => ({
      route: `GET ${pattern}`,
      access: 'client',
      ok: 200,
      request: async () => ({
        method: 'GET',
        url: pattern.replace(':bucket/*', `${await storageBucket()}/shared/readme.txt`),
      }),
    }),
  ),
  {
    route: 'GET /storage/v1/object/public/:bucket/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'GET',
      url: `/storage/v1/object/public/${await storageBucket()}/shared/readme.txt`,
    }),
  },
  {
    route: 'POST /storage/v1/object/list/:bucket',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/storage/v1/object/list/${await storageBucket()}`,
      payload: { prefix: '' },
    }),
  },
  {
    route: 'DELETE /storage/v1/object/:bucket',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'DELETE',
      url: `/storage/v1/object/${await storageBucket()}`,
      payload: { prefixes: [await sbObject('rm')] },
    }),
  },
  ...(['move', 'copy'] as const).map(
    (action): Row => ({
      route: `POST /storage/v1/object/${action}`,
      access: 'client',
      ok: 200,
      request: async () => ({
        method: 'POST',
        url: `/storage/v1/object/${action}`,
        payload: {
          bucketId: await storageBucket(),
          sourceKey: await sbObject(action),
          destinationKey: `${action}-${randomUUID()}`,
        },
      }),
    }),
  ),
  {
    route: 'POST /storage/v1/object/sign/:bucket/*',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/storage/v1/object/sign/${await storageBucket()}/shared/readme.txt`,
      payload: { expiresIn: 60 },
    }),
  },
  {
    route: 'POST /storage/v1/object/sign/:bucket',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/storage/v1/object/sign/${await storageBucket()}`,
      payload: { expiresIn: 60, paths: ['shared/readme.txt'] },
    }),
  },
  {
    route: 'GET /storage/v1/object/sign/:bucket/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'GET',
      url: `/storage/v1${await sbSigned(`/storage/v1/object/sign/${await storageBucket()}/shared/readme.txt`)}`,
    }),
  },
  {
    route: 'POST /storage/v1/object/upload/sign/:bucket/*',
    access: 'client',
    ok: 200,
    request: async () => ({
      method: 'POST',
      url: `/storage/v1/object/upload/sign/${await storageBucket()}/up-${randomUUID()}`,
    }),
  },
  {
    route: 'PUT /storage/v1/object/upload/sign/:bucket/*',
    access: 'public',
    ok: 200,
    request: async () => ({
      method: 'PUT',
      url: `/storage/v1${await sbSigned(`/storage/v1/object/upload/sign/${await storageBucket()}/up-${randomUUID()}`)}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'sb',
    }),
  },
  ...(['POST', 'PUT'] as const).map(
    (method): Row => ({
      route: `${method} /storage/v1/object/:bucket/*`,
      access: 'client',
      ok: 200,
      request: async () => ({
        method,
        url: `/storage/v1/object/${await storageBucket()}/up-${randomUUID()}.txt`,
        headers: { 'content-type': 'text/plain' },
        payload: 'sb',
      }),
    }),
  ),
];
routes.push(...sbRows.map((r) => ({ ...r, hidden: true as const })));
// Supabase's auth API (/auth/v1, GoTrue's wire): the project key on the JSON endpoints, a user
// token on /user and /logout (an admin token is no user: 403), the service key on /admin.
const gotrueUserOnly = { 'admin access token': 403 } as const;
routes.push(
  ...(
    [
      {
        route: 'POST /auth/v1/signup',
        access: 'client',
        ok: 200,
        request: () => ({
          method: 'POST',
          url: '/auth/v1/signup',
          payload: { email: unique(), password: 'matrix-pass-1' },
          remoteAddress: someIp(),
        }),
      },
      {
        route: 'POST /auth/v1/token',
        access: 'client',
        ok: 200,
        request: () => ({
          method: 'POST',
          url: '/auth/v1/token?grant_type=password',
          payload: { email: shared.user.email, password: shared.user.password },
          remoteAddress: someIp(),
        }),
      },
      {
        route: 'GET /auth/v1/user',
        access: 'token',
        ok: 200,
        overrides: gotrueUserOnly,
        request: () => ({ method: 'GET', url: '/auth/v1/user' }),
      },
      {
        route: 'PUT /auth/v1/user',
        access: 'token',
        ok: 200,
        overrides: gotrueUserOnly,
        request: () => ({ method: 'PUT', url: '/auth/v1/user', payload: { data: { matrix: true } } }),
      },
      {
        route: 'POST /auth/v1/logout',
        access: 'token',
        ok: 204,
        endsSession: true,
        overrides: gotrueUserOnly,
        request: () => ({ method: 'POST', url: '/auth/v1/logout?scope=local' }),
      },
      {
        route: 'POST /auth/v1/otp',
        access: 'client',
        ok: 200,
        request: () => ({ method: 'POST', url: '/auth/v1/otp', payload: { email: unique() }, remoteAddress: someIp() }),
      },
      {
        route: 'POST /auth/v1/verify',
        access: 'client',
        ok: 403, // otp_expired: a code that was never sent
        request: () => ({
          method: 'POST',
          url: '/auth/v1/verify',
          payload: { type: 'email', email: unique(), token: '000000' },
          remoteAddress: someIp(),
        }),
      },
      {
        route: 'POST /auth/v1/recover',
        access: 'client',
        ok: 200,
        request: () => ({
          method: 'POST',
          url: '/auth/v1/recover',
          payload: { email: unique() },
          remoteAddress: someIp(),
        }),
      },
      {
        route: 'GET /auth/v1/authorize',
        access: 'public',
        ok: 400, // provider_disabled: no such provider is configured
        request: () => ({
          method: 'GET',
          url: `/auth/v1/authorize?provider=unconfigured&redirect_to=${encodeURIComponent('http://localhost:3000/cb')}&code_challenge=${CHALLENGE}&code_challenge_method=s256`,
        }),
      },
      {
        route: 'POST /auth/v1/admin/users',
        access: 'admin',
        ok: 200,
        request: () => ({
          method: 'POST',
          url: '/auth/v1/admin/users',
          payload: { email: unique(), password: 'matrix-pass-1', email_confirm: true },
        }),
      },
      {
        route: 'GET /auth/v1/admin/users',
        access: 'admin',
        ok: 200,
        request: () => ({ method: 'GET', url: '/auth/v1/admin/users?page=1&per_page=2' }),
      },
      {
        route: 'GET /auth/v1/admin/users/:id',
        access: 'admin',
        ok: 200,
        request: () => ({ method: 'GET', url: `/auth/v1/admin/users/${shared.user.id}` }),
      },
      {
        route: 'PUT /auth/v1/admin/users/:id',
        access: 'admin',
        ok: 200,
        request: () => ({
          method: 'PUT',
          url: `/auth/v1/admin/users/${shared.user.id}`,
          payload: { user_metadata: { matrix: true } },
        }),
      },
      {
        route: 'DELETE /auth/v1/admin/users/:id',
        access: 'admin',
        ok: 200,
        request: async () => ({ method: 'DELETE', url: `/auth/v1/admin/users/${(await t.signUp()).user.id}` }),
      },
      {
        route: 'GET /auth/v1/settings',
        access: 'client',
        ok: 200,
        request: () => ({ method: 'GET', url: '/auth/v1/settings' }),
      },
      {
        route: 'GET /auth/v1/health',
        access: 'public',
        ok: 200,
        request: () => ({ method: 'GET', url: '/auth/v1/health' }),
      },
      {
        route: 'POST /auth/v1/factors',
        access: 'token',
        ok: 200,
        // The shared user has passkeys (rows above): a new factor needs aal2.
        overrides: { ...gotrueUserOnly, 'user access token': 'aal2' },
        request: () => ({
          method: 'POST',
          url: '/auth/v1/factors',
          payload: { factor_type: 'totp', friendly_name: `m-${randomUUID()}` },
        }),
      },
      {
        route: 'POST /auth/v1/factors/:factorId/challenge',
        access: 'token',
        ok: 404, // another user's (or no) factor: mfa_factor_not_found
        overrides: gotrueUserOnly,
        request: () => ({ method: 'POST', url: `/auth/v1/factors/${randomUUID()}/challenge`, payload: {} }),
      },
      {
        route: 'POST /auth/v1/factors/:factorId/verify',
        access: 'token',
        ok: 404,
        overrides: gotrueUserOnly,
        request: () => ({
          method: 'POST',
          url: `/auth/v1/factors/${randomUUID()}/verify`,
          payload: { challenge_id: randomUUID(), code: '123456' },
        }),
      },
      {
        route: 'DELETE /auth/v1/factors/:factorId',
        access: 'token',
        ok: 404,
        overrides: gotrueUserOnly,
        request: () => ({ method: 'DELETE', url: `/auth/v1/factors/${randomUUID()}` }),
      },
      {
        route: 'POST /auth/v1/sso',
        access: 'client',
        ok: 400, // no PKCE challenge: validation_failed (nothing is started)
        request: () => ({ method: 'POST', url: '/auth/v1/sso', payload: { domain: 'example.com' } }),
      },
      // Issue 35 leftovers (br-sb3): admin generate_link and invite, and the emailed link (GET /verify).
      {
        route: 'POST /auth/v1/admin/generate_link',
        access: 'admin',
        ok: 200,
        request: () => ({
          method: 'POST',
          url: '/auth/v1/admin/generate_link',
          payload: { type: 'magiclink', email: unique() },
        }),
      },
      {
        route: 'POST /auth/v1/invite',
        access: 'admin',
        ok: 200,
        request: () => ({ method: 'POST', url: '/auth/v1/invite', payload: { email: unique() } }),
      },
      {
        route: 'GET /auth/v1/verify',
        access: 'public',
        ok: 403, // otp_expired: a link that was never issued (and no redirect_to to send it back to)
        request: () => ({
          method: 'GET',
          url: `/auth/v1/verify?token=${wrongToken}&type=magiclink`,
          remoteAddress: someIp(),
        }),
      },
    ] satisfies Row[]
  ).map((row) => ({ ...row, gotrue: true as const })),
);

// ---------------------------------------------------------------------------------------------
// Expectations

function expectedOutcome(access: Access, kind: Kind): Outcome {
  if (access === 'public') return 'ok';
  if (kind === 'none' || kind === 'invalid' || kind === 'rejectedToken') return 401;
  if (access === 'client') return 'ok';
  if (access === 'token') return kind === 'anon' || kind === 'apiKey' ? 401 : 'ok';
  return kind === 'admin' || kind === 'apiKey' ? 'ok' : 403;
}

async function send(row: Row, credential: Credential) {
  const request = await row.request();
  const headers = {
    ...(request.headers as Headers | undefined),
    ...(await credential.headers(row.endsSession === true)),
  };
  return t.request({ ...request, headers });
}

type Response = Awaited<ReturnType<TestApp['request']>>;

function expectUnauthorized(res: Response, kind: Kind = 'invalid') {
  expect(res.statusCode, res.body).toBe(401);
  const error = kind === 'rejectedToken' ? 'AUTH_UNAUTHORIZED' : 'UNAUTHORIZED';
  expect(res.json).toMatchObject({ error, statusCode: 401, message: expect.any(String) });
  expect(res.json.message).not.toBe('');
}

function expectForbidden(res: Response) {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json).toMatchObject({ error: 'INSUFFICIENT_PERMISSIONS', statusCode: 403, message: expect.any(String) });
}

/** /storage/v1 refuses in Supabase storage-api's shape: {statusCode: "401", error, message}. */
function expectStorageRefusal(res: Response, status: 401 | 403) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json).toMatchObject({ statusCode: String(status), error: 'Unauthorized', message: expect.any(String) });
}

function expectOutcome(res: Response, row: Row, outcome: Outcome, kind: Kind) {
  if (row.gotrue) return expectGoTrueOutcome(res, row, outcome, kind);
  // A HEAD answer has no body to check: its status says it (tus's HEAD routes have no GET twin).
  if (row.route.startsWith('HEAD ')) {
    return expect(res.statusCode).toBe(outcome === 'ok' ? row.ok : outcome === 'aal2' ? 403 : outcome);
  }
  if ((outcome === 401 || outcome === 403) && row.route.includes(' /storage/v1/') && !row.route.includes('/s3')) {
    expectStorageRefusal(res, outcome);
  } else if (outcome === 401) expectUnauthorized(res, kind);
  else if (outcome === 403) expectForbidden(res);
  else if (outcome === 'aal2') {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json).toMatchObject({ error: 'AUTH_INSUFFICIENT_AAL', nextActions: expect.any(String) });
  } else expect(res.statusCode, res.body).toBe(row.ok);
}

/** GoTrue's refusals: 401 no_authorization, 403 bad_jwt (a rejected token) or not_admin. */
function expectGoTrueOutcome(res: Response, row: Row, outcome: Outcome, kind: Kind) {
  if (outcome === 'ok') return expect(res.statusCode, res.body).toBe(row.ok);
  if (outcome === 'aal2') {
    expect(res.statusCode, res.body).toBe(403);
    return expect(res.json).toMatchObject({ code: 403, error_code: 'insufficient_aal' });
  }
  const rejected = outcome === 401 && kind === 'rejectedToken';
  expect(res.statusCode, res.body).toBe(rejected ? 403 : outcome);
  // An admin token on a user's own route is a token, but no user's: bad_jwt too.
  const code =
    rejected || (outcome === 403 && row.access === 'token')
      ? 'bad_jwt'
      : outcome === 401
        ? 'no_authorization'
        : 'not_admin';
  expect(res.json).toMatchObject({ code: res.statusCode, error_code: code, msg: expect.any(String) });
}

const cases = routes.flatMap((row) =>
  (Object.entries(credentials) as [CredentialName, Credential][]).map(([credential, c]) => {
    const outcome = row.overrides?.[credential] ?? expectedOutcome(row.access, c.kind);
    return {
      route: row.route,
      access: row.access,
      credential,
      expected: outcome === 'ok' ? `${row.ok}` : `${outcome}`,
      row,
      outcome,
    };
  }),
);

// ---------------------------------------------------------------------------------------------
// The route table is the app's route table

/** "METHOD /path" for every route in Fastify's radix tree, less the HEAD twin of each GET. */
function registeredRoutes(): string[] {
  const found: string[] = [];
  const pathAt: string[] = [''];
  for (const line of t.app.printRoutes().split('\n')) {
    if (line.trim() === '') continue;
    const [, tree = '', text = ''] = /^([│├└─\s]*)(.*)$/u.exec(line)!;
    const depth = tree.length / 4;
    const [, segment = '', methods] = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(text)!;
    const path = (pathAt[depth - 1] ?? '') + (segment === '(empty root node)' ? '' : segment);
    pathAt[depth] = path;
    for (const method of methods?.split(', ') ?? []) found.push(`${method} ${path}`);
  }
  return found.filter((r) => !(r.startsWith('HEAD ') && found.includes(`GET ${r.slice(5)}`))).sort();
}

describe('the matrix covers every route', () => {
  it('has exactly one row per route the router holds', () => {
    const table = routes.map((r) => r.route);
    expect(new Set(table).size).toBe(table.length);
    expect(registeredRoutes()).toEqual([...table].sort());
  });

  it('has exactly one row per operation of the OpenAPI document, hidden routes aside', async () => {
    const res = await t.request({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const documented = Object.entries(res.json.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1').replace('{*}', '*')}`),
      )
      // HEAD twins of GET routes are checked with the GET rows (see the HEAD cases).
      .filter((op) => !op.startsWith('HEAD '))
      .sort();
    expect(documented).toEqual(
      routes
        .filter((r) => !r.hidden)
        .map((r) => r.route)
        .sort(),
    );
  });

  it('documents a security requirement exactly on the routes that need a credential', async () => {
    const { json } = await t.request({ method: 'GET', url: '/api/openapi.json' });
    const secured = (route: string) => {
      const [method = '', path = ''] = route.split(' ');
      const op = json.paths[path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}')][method.toLowerCase()];
      return Array.isArray(op.security) && op.security.length > 0;
    };
    const documented = routes.filter((r) => !r.hidden);
    expect(documented.filter((r) => secured(r.route)).map((r) => r.route)).toEqual(
      documented.filter((r) => r.access !== 'public').map((r) => r.route),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The matrix

describe('authorization matrix', () => {
  it.each(cases)('$route ($access) with $credential → $expected', async ({ row, credential, outcome }) => {
    const res = await send(row, credentials[credential]);
    expectOutcome(res, row, outcome, credentials[credential].kind);
  });
});

describe('HEAD shares the access level of its GET route', () => {
  const guardedGets = routes.filter((r) => r.route.startsWith('GET ') && r.access !== 'public');
  it.each(guardedGets.map((row) => ({ route: row.route, row })))('HEAD of $route', async ({ row }) => {
    const request = (await row.request()) as InjectOptions;
    const head = (headers: Headers) => t.request({ ...request, method: 'HEAD', headers });
    expect((await head({})).statusCode).toBe(401);
    expect((await head(bearer('garbage'))).statusCode).toBe(401);
    const status = (credential: CredentialName) => {
      const outcome = row.overrides?.[credential] ?? expectedOutcome(row.access, credentials[credential].kind);
      return outcome === 'ok' ? row.ok : outcome;
    };
    expect((await head(bearer(shared.user.accessToken))).statusCode).toBe(status('user access token'));
    expect((await head(bearer(shared.adminToken))).statusCode).toBe(status('admin access token'));
    expect((await head({ 'x-api-key': t.apiKey })).statusCode).toBe(status('API key as x-api-key'));
  });
});

describe('path spellings reach the same access check', () => {
  it.each([
    ['a trailing slash', '/api/metadata/api-key/'],
    ['a query string', '/api/metadata/api-key?x=1'],
    ['a trailing slash and a query string', '/api/auth/config/?a=b'],
  ])('an admin route with %s needs a credential', async (_label, url) => {
    expectUnauthorized(await t.request({ method: 'GET', url }));
    expectForbidden(await t.request({ method: 'GET', url, headers: bearer(t.anonKey) }));
    expect((await t.request({ method: 'GET', url, headers: { 'x-api-key': t.apiKey } })).statusCode).toBe(200);
  });
});

describe('malformed Authorization headers are rejected, not ignored', () => {
  it.each([
    ['a Basic scheme', () => 'Basic dXNlcjpwYXNz'],
    ['Bearer without a credential', () => 'Bearer'],
    ['two credentials after Bearer', () => `Bearer ${t.apiKey} ${t.apiKey}`],
    ['the API key without a scheme', () => t.apiKey],
    ['the API key with a Token scheme', () => `Token ${t.apiKey}`],
    ['an API key one character short', () => `Bearer ${t.apiKey.slice(0, -1)}`],
  ])('%s on an admin route → 401', async (_label, header) => {
    expectUnauthorized(
      await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: { authorization: header() } }),
    );
  });

  it('an invalid Authorization header is not rescued by a valid x-api-key', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/metadata/api-key',
      headers: { authorization: 'Bearer garbage', 'x-api-key': t.apiKey },
    });
    expectUnauthorized(res);
  });
});

// ---------------------------------------------------------------------------------------------
// Authorization comes before the body: a caller without access learns nothing about validation.

interface BodyCase {
  label: string;
  request: () => InjectOptions;
  /** The status the same request gets with full access: proof that it really is invalid. */
  withAccess: number;
  /** A credential that has access to the route. */
  allowed: CredentialName;
  /** Credentials that must get 401 / 403 regardless of the body. */
  unauthorized: CredentialName[];
  forbidden: CredentialName[];
}

const invalidBodies: BodyCase[] = [
  {
    label: 'POST /api/database/migrations with transaction control in its SQL',
    request: () => ({
      method: 'POST',
      url: '/api/database/migrations',
      payload: { version: '1'.repeat(64), name: 'matrix', sql: 'begin; select 1; commit;' },
    }),
    withAccess: 403, // the SQL guard's FORBIDDEN (api-contract §3.2)
    allowed: 'API key as x-api-key',
    unauthorized: ['no credential', 'garbage bearer', 'unknown API key as x-api-key'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'POST /api/database/advance/rawsql with SET ROLE',
    request: () => ({ method: 'POST', url: '/api/database/advance/rawsql', payload: { query: 'set role postgres' } }),
    withAccess: 403, // the SQL guard's FORBIDDEN (api-contract §3.2)
    allowed: 'admin access token',
    unauthorized: ['no credential', 'garbage bearer'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'PUT /api/auth/config with a wrongly typed field',
    request: () => ({ method: 'PUT', url: '/api/auth/config', payload: { passwordMinLength: 'short' } }),
    withAccess: 400,
    allowed: 'admin access token',
    unauthorized: ['no credential', 'garbage bearer', 'unknown API key as x-api-key'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'PUT /api/auth/config with an unknown field',
    request: () => ({ method: 'PUT', url: '/api/auth/config', payload: { isAdmin: true } }),
    withAccess: 400,
    allowed: 'API key as Bearer',
    unauthorized: ['no credential'],
    forbidden: ['user access token'],
  },
  {
    label: 'PUT /api/auth/config with malformed JSON',
    request: () => ({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'content-type': 'application/json' },
      payload: '{"passwordMinLength":',
    }),
    withAccess: 400,
    allowed: 'admin access token',
    unauthorized: ['no credential', 'garbage bearer'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'PUT /api/auth/config with an unsupported content type',
    request: () => ({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'content-type': 'application/xml' },
      payload: '<config/>',
    }),
    withAccess: 415,
    allowed: 'API key as x-api-key',
    unauthorized: ['no credential'],
    forbidden: ['user access token'],
  },
  {
    label: 'PUT /api/auth/config with a body over the size limit',
    request: () => ({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'content-type': 'application/json' },
      payload: `{"x":"${'a'.repeat(t.config.maxBodyBytes)}"}`,
    }),
    withAccess: 413,
    allowed: 'admin access token',
    unauthorized: ['no credential'],
    forbidden: ['user access token'],
  },
  {
    label: 'DELETE /api/auth/users with ids that are not uuids',
    request: () => ({ method: 'DELETE', url: '/api/auth/users', payload: { userIds: ['not-a-uuid'] } }),
    withAccess: 400,
    allowed: 'API key as x-api-key',
    unauthorized: ['no credential', 'garbage bearer', 'unknown API key as Bearer'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'DELETE /api/auth/users without a body',
    request: () => ({ method: 'DELETE', url: '/api/auth/users' }),
    withAccess: 400,
    allowed: 'admin access token',
    unauthorized: ['no credential'],
    forbidden: ['user access token'],
  },
  {
    label: 'GET /api/auth/users/:userId with a malformed id',
    request: () => ({ method: 'GET', url: '/api/auth/users/not-a-uuid' }),
    withAccess: 400,
    allowed: 'admin access token',
    unauthorized: ['no credential', 'garbage bearer'],
    forbidden: ['anon key', 'user access token'],
  },
  {
    label: 'GET /api/auth/users with an out-of-range limit',
    request: () => ({ method: 'GET', url: '/api/auth/users?limit=0' }),
    withAccess: 400,
    allowed: 'API key as Bearer',
    unauthorized: ['no credential'],
    forbidden: ['user access token'],
  },
  {
    label: 'POST /api/email/send-raw with a bad address',
    request: () => ({ method: 'POST', url: '/api/email/send-raw', payload: { to: 'nope', subject: 's', html: 'x' } }),
    withAccess: 400,
    allowed: 'user access token',
    unauthorized: ['no credential', 'garbage bearer', 'anon key'],
    forbidden: [],
  },
  {
    label: 'PATCH /api/auth/profiles/current with a profile that is not an object',
    request: () => ({ method: 'PATCH', url: '/api/auth/profiles/current', payload: { profile: 'x' } }),
    withAccess: 400,
    allowed: 'user access token',
    unauthorized: ['no credential', 'garbage bearer', 'anon key', 'API key as Bearer', 'API key as x-api-key'],
    forbidden: [],
  },
];

describe('access is checked before the body is read', () => {
  const bodyCases = invalidBodies.flatMap((c) => [
    ...c.unauthorized.map((credential) => ({ ...c, credential, expected: 401 as const })),
    ...c.forbidden.map((credential) => ({ ...c, credential, expected: 403 as const })),
    { ...c, credential: c.allowed, expected: c.withAccess },
  ]);

  it.each(bodyCases)('$label, $credential → $expected', async ({ request, credential, expected, allowed }) => {
    const base = request();
    const headers = { ...(base.headers as Headers | undefined), ...(await credentials[credential].headers(false)) };
    const res = await t.request({ ...base, headers });
    if (expected === 401) expectUnauthorized(res, credentials[credential].kind);
    else if (expected === 403 && credential !== allowed) expectForbidden(res);
    else {
      expect(res.statusCode, res.body).toBe(expected);
      expect(res.json.statusCode).toBe(expected);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Expired tokens. Last in the file: it moves the shared clock past every token issued so far.

describe('expired access tokens', () => {
  beforeAll(() => {
    t.clock.advance((t.config.accessTokenTtlSeconds + 1) * 1000);
  });

  const expiredCases = routes.flatMap((row) =>
    (Object.keys(expiredCredentials) as (keyof typeof expiredCredentials)[]).map((credential) => {
      const outcome = expectedOutcome(row.access, 'rejectedToken');
      return {
        route: row.route,
        access: row.access,
        credential,
        expected: outcome === 'ok' ? `${row.ok}` : `${outcome}`,
        row,
        outcome,
      };
    }),
  );

  it.each(expiredCases)('$route ($access) with $credential → $expected', async ({ row, credential, outcome }) => {
    const res = await send(row, expiredCredentials[credential]);
    expectOutcome(res, row, outcome, expiredCredentials[credential].kind);
    if (outcome === 401) expect(row.gotrue ? res.json.msg : res.json.message).toBe('The access token has expired.');
  });

  it('tokens issued after the clock moved still work, so the 401s above are about expiry', async () => {
    const fresh = await t.signUp();
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(fresh.accessToken),
    });
    expect(me.statusCode).toBe(200);
    const key = await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(await t.adminToken()) });
    expect(key.statusCode).toBe(200);
  });
});
