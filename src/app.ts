// buildApp(deps): the Fastify instance with every plugin and module route. It never listens;
// main.ts does, and tests use inject() or listen on a port of their own.
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { defaultMaxConnections } from './platform/fd-limit.js';
import type { Deps } from './deps.js';
import { installAdmission } from './http/admission.js';
import { createConcurrencyLimit } from './http/concurrency-limit.js';
import { originPolicy, registerCors } from './http/cors.js';
import { registerFunctionsOrigin } from './http/functions-origin.js';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { parseJsonBodies } from './http/json-body.js';
import { registerAccessControl } from './http/principal.js';
import { registerReadYourWrites } from './http/read-your-writes.js';
import { accessGroup, requireRouteAccess } from './http/route-access.js';
import { guardOf } from './core/db.js';
import { registerUnreadBodyDrain } from './http/unread-body.js';
import { registerRequestDeadline } from './http/request-deadline.js';
import { requestIdOf } from './http/request-id.js';
import { serializerCompiler } from './http/response-serializer.js';
import { aiPlugin } from './modules/ai/index.js';
import {
  authPlugin,
  createAdminSessionBinding,
  createAuthServices,
  findUserById,
  SESSION_REVOKED_CHANNEL,
  startRevokedSessions,
} from './modules/auth/index.js';
import { dashboardPlugin } from './modules/dashboard/index.js';
import { createMailer, emailPlugin } from './modules/email/index.js';
import { functionsPlugin } from './modules/functions/index.js';
import { healthPlugin, VERSION } from './modules/health/index.js';
import { metadataPlugin } from './modules/metadata/index.js';
import { insightsPlugin, startInsights } from './modules/insights/index.js';
import { installLogging } from './modules/logs/index.js';
import { instrumentRequests } from './modules/metrics/index.js';
import { migrationsPlugin } from './modules/migrations/index.js';
import { databasePlugin } from './modules/database/index.js';
import { backupsPlugin } from './modules/backups/index.js';
import { configuredProviderNames, oauthPlugin } from './modules/oauth/index.js';
import { ssoPlugin } from './modules/sso/index.js';
import { paymentsPlugin } from './modules/payments/index.js';
import {
  changeCapturePlugin,
  createChangeCapture,
  createRealtimeRefusals,
  realtimePlugin,
  registerChangeCaptureMetrics,
} from './modules/realtime/index.js';
import { createRecordsApi, createSchemaCache, recordsPlugin } from './modules/records/index.js';
import { typesPlugin } from './modules/types/index.js';
import { docsPlugin } from './modules/docs/index.js';
import { usagePlugin } from './modules/usage/index.js';
import { schedulesPlugin } from './modules/schedules/index.js';
import { loadPlatformKeys, type PlatformKeys, secretsPlugin } from './modules/secrets/index.js';
import { createImageService, createResumableUploads, storagePlugin } from './modules/storage/index.js';
import { createSitesHosting } from './modules/sites/index.js';
import {
  supabaseApiKeyHeader,
  supabaseExposedHeaders,
  supabaseAuthPlugin,
  supabaseRealtimePlugin,
  supabaseRestPlugin,
  supabaseStoragePlugin,
} from './modules/supabase/index.js';

export interface AppOptions {
  /** pino logger options; false silences the log (tests). */
  logger?: boolean | Record<string, unknown>;
  /** The platform keys, when the caller loaded them already (main.ts shows them); else loaded here. */
  keys?: PlatformKeys;
}

export async function buildApp(infrastructure: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  // The modules that sign, check or show the platform keys get them with the infrastructure.
  const deps = { ...infrastructure, keys: options.keys ?? (await loadPlatformKeys(infrastructure)) };
  const limits = deps.config.http;
  const app = Fastify({
    logger: options.logger ?? { level: deps.config.logLevel },
    bodyLimit: deps.config.maxBodyBytes,
    trustProxy: deps.config.trustProxy,
    forceCloseConnections: 'idle',
    // Slow or silent clients cannot hold a connection forever: headers within headersTimeout,
    // the whole request body within requestTimeout, no silence past connectionTimeout.
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    requestIdHeader: false,
    genReqId: requestIdOf,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
    // One stdout line per request, written by the logs module's onResponse hook.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  // Deny by default: from here on, a route that declares no access level fails startup.
  requireRouteAccess(app);
  // Connections past the cap are closed as soon as they are accepted, so a flood cannot use up
  // the file descriptors the pool, uploads and the function runtime need.
  app.server.maxConnections = limits.maxConnections ?? defaultMaxConnections();
  // Overload is refused by the HTTP server before Fastify sees the request.
  const pool = guardOf(deps.sql);
  const now = () => deps.clock.now().getTime();
  const { admission } = deps.config;
  // Sites (issue 36): the site's own origins get CORS with credentials without being listed.
  const sites = await createSitesHosting(deps, app.log);
  app.addHook('onClose', () => sites.close());
  const allowsOrigin = sites.directory.withSiteOrigins(originPolicy(deps.config.corsOrigins));
  installAdmission(app, {
    pool,
    limit: createConcurrencyLimit({
      min: admission.minConcurrency,
      max: pool.options.max + pool.options.queueMax,
      tolerance: admission.latencyTolerance,
      windowMs: admission.windowMs,
      baselineMs: admission.baselineMs,
      now,
    }),
    now,
    allowsOrigin,
    onRefusing: (refused, limit) => app.log.warn({ refused, limit }, 'at capacity: refusing requests with 503'),
  });

  // Fastify parses text/plain bodies into strings by default, which turns a wrong content type
  // into a confusing "expected object" validation error. JSON routes answer 415 instead; a route
  // that takes other bodies registers its own parser in its own scope.
  app.removeContentTypeParser('text/plain');
  // Nesting depth checked before any JSON body is parsed (stack-deep JSON freezes the driver).
  parseJsonBodies(app, { maxDepth: deps.config.maxJsonDepth });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Callback-style (not async) hooks: no promise and no extra microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // While shutting down, answers close their connection so that close() need not wait for
  // keep-alive sockets to time out once in-flight requests are done.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  registerErrorHandling(app);
  registerRequestDeadline(app, deps.config);
  registerUnreadBodyDrain(app);
  const logging = installLogging(app, deps);
  const realtimeRefusals = createRealtimeRefusals();
  // The console's charts: this server samples its gauges each minute and may fold the logs' rollup.
  const insights = startInsights(deps, app.server, (err) => app.log.error({ err }, 'insights: the rollup failed'));
  app.decorate('insights', insights);
  app.addHook('onClose', () => insights.close());
  // Image transformations: one queue and variant cache for Plinth's and Supabase's paths.
  const images = createImageService(deps, (err) => app.log.warn({ err }, 'storing an image variant failed'));
  // Realtime table changes from logical replication (REALTIME_CHANGES=logical): its gauges and
  // health warnings are read by the metrics and health modules.
  const changeCapture = createChangeCapture(deps, {
    info: (message) => app.log.info(message),
    warn: (message, err) => app.log.warn({ err }, message),
    error: (message, err) => app.log.error({ err }, message),
  });
  const metricsPlugin = instrumentRequests(
    app,
    deps,
    () => logging.service?.droppedCount() ?? 0,
    () => realtimeRefusals.counts(),
    () => images.counts(),
    [(registry) => registerChangeCaptureMetrics(changeCapture, registry)],
  );
  const revokedSessions = await startRevokedSessions(deps, (err) =>
    app.log.error({ err }, 'reloading revoked sessions failed'),
  );
  app.addHook('onClose', () => revokedSessions.close());
  // Admin access tokens hold only while their session is live (a leaked signing key mints none).
  const adminSessions = createAdminSessionBinding(deps);
  // A site host answers with the site before any credential check, CORS header or API route.
  sites.serve(app);
  // CORS before access control: a refused credential's 401 carries the page's CORS headers too,
  // so a browser app reads AUTH_UNAUTHORIZED (and refreshes) instead of a network error.
  registerCors(app, allowsOrigin, supabaseExposedHeaders);
  registerAccessControl(app, deps, revokedSessions, adminSessions, supabaseApiKeyHeader);
  // Read replicas (issue 38): a caller's writes are noted so that its reads see them.
  registerReadYourWrites(app, deps.replicas);
  registerFunctionsOrigin(app, deps.config.functions.origin);
  await app.register(cookie);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Plinth API', version: VERSION, description: 'Self-hostable backend platform' },
      servers: [{ url: deps.config.apiBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Access token, API key or anon key' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  // The API reference page and its document, public; /api/docs is the agent docs route the MCP
  // server reads.
  await app.register(
    accessGroup('public', async (reference) => {
      await reference.register(swaggerUi, { routePrefix: '/api/reference' });
      reference.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    }),
  );

  // The modules, each through its plugin. What one module needs of another is built here and
  // passed explicitly: the mailer (email → auth), the auth services and revoked sessions (auth →
  // oauth, access control), the configured OAuth providers (oauth → auth), the schema cache
  // (records → migrations).
  const mailer = createMailer(deps, (email) =>
    app.log.info({ email }, 'email not sent (no SMTP configured): logged instead'),
  );
  const auth = createAuthServices(
    deps,
    mailer,
    (err, what) => app.log.warn({ err }, `${what} could not be delivered`),
    revokedSessions,
  );
  app.addHook('onClose', () => auth.email.drain());
  await app.register(
    healthPlugin(deps, async () => (changeCapture.mode === 'logical' ? (await changeCapture.status()).warnings : [])),
  );
  await app.register(authPlugin(deps, auth, () => configuredProviderNames(deps.sql)));
  await app.register(emailPlugin(deps, mailer, (userId) => findUserById(deps.sql, userId)));
  await app.register(oauthPlugin(deps, auth.sessions));
  await app.register(ssoPlugin(deps));

  const schemaCache = await createSchemaCache(deps.sql, deps.config.recordsSchemas);
  app.addHook('onClose', () => schemaCache.close());
  const recordsApi = createRecordsApi(deps, schemaCache);
  await app.register(recordsPlugin(deps, recordsApi));
  await app.register(migrationsPlugin(deps, () => schemaCache.refreshIfChanged()));
  await app.register(databasePlugin(deps, () => schemaCache.refreshIfChanged()));
  await app.register(typesPlugin(deps, schemaCache));
  await app.register(docsPlugin());
  await app.register(usagePlugin(deps));
  await app.register(insightsPlugin(deps));
  await app.register(backupsPlugin(deps, () => schemaCache.refreshIfChanged()));
  await app.register(metadataPlugin(deps));

  await app.register(secretsPlugin(deps));
  await app.register(aiPlugin(deps));
  await app.register(functionsPlugin(deps));
  await app.register(paymentsPlugin(deps));
  // Resumable uploads (tus) on Plinth's path and Supabase's: one store, locker and sweep for both.
  const resumableUploads = await createResumableUploads(deps, {
    onError: (err) => app.log.error({ err }, 'resumable uploads'),
  });
  app.addHook('onReady', () => resumableUploads.start());
  app.addHook('onClose', () => resumableUploads.close());
  await app.register(storagePlugin(deps, images, resumableUploads));
  await app.register(supabaseStoragePlugin(deps, images, resumableUploads));
  await app.register(schedulesPlugin(deps));
  await app.register(sites.plugin);
  if (logging.plugin) await app.register(logging.plugin);
  if (metricsPlugin) await app.register(metricsPlugin);
  await app.register(realtimePlugin(deps, revokedSessions, SESSION_REVOKED_CHANNEL, realtimeRefusals, adminSessions));
  await app.register(supabaseRealtimePlugin(deps));
  await app.register(changeCapturePlugin(changeCapture));
  await app.register(dashboardPlugin());
  // Supabase's wire protocol: thin adapters over the modules above (issue 35).
  await app.register(supabaseRestPlugin(deps, recordsApi));
  await app.register(supabaseAuthPlugin(deps, auth));

  return app;
}
