// buildApp(deps): the Fastify instance with every plugin and module route. It never listens;
// main.ts does, and tests use inject() or listen on a port of their own.
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Deps } from './deps.js';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { registerAccessControl } from './http/principal.js';
import { aiRoutes } from './modules/ai/ai.routes.js';
import { adminSessionRoutes } from './modules/auth/admin-sessions.routes.js';
import { createAuthServices } from './modules/auth/auth.services.js';
import { configRoutes } from './modules/auth/config.routes.js';
import { emailFlowRoutes } from './modules/auth/email-flows.routes.js';
import { sessionRoutes } from './modules/auth/sessions.routes.js';
import { userRoutes } from './modules/auth/users.routes.js';
import { emailRoutes } from './modules/email/email.routes.js';
import { createMailer } from './modules/email/mailer.js';
import { functionsRoutes } from './modules/functions/functions.routes.js';
import { createFunctionsService } from './modules/functions/functions.service.js';
import { invokeRoutes } from './modules/functions/invoke.routes.js';
import { healthRoutes, VERSION } from './modules/health/health.routes.js';
import { databaseMetadataRoutes } from './modules/metadata/database-metadata.routes.js';
import { databaseObjectsRoutes } from './modules/metadata/database-objects.routes.js';
import { keyRoutes } from './modules/metadata/keys.routes.js';
import { metadataRoutes } from './modules/metadata/metadata.routes.js';
import { createMetadataService } from './modules/metadata/metadata.service.js';
import { exportRoutes } from './modules/migrations/export.routes.js';
import { createExportService } from './modules/migrations/export.service.js';
import { migrationsRoutes } from './modules/migrations/migrations.routes.js';
import { createMigrationsService } from './modules/migrations/migrations.service.js';
import { rawSqlRoutes } from './modules/migrations/raw-sql.routes.js';
import { createRawSqlService } from './modules/migrations/raw-sql.service.js';
import { tableAdminRoutes } from './modules/migrations/table-admin.routes.js';
import { createTableAdminService } from './modules/migrations/table-admin.service.js';
import { createIdTokenService } from './modules/oauth/id-token.service.js';
import { oauthConfigRoutes } from './modules/oauth/oauth-config.routes.js';
import { createOAuthService } from './modules/oauth/oauth.service.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import { paymentsPlugin } from './modules/payments/index.js';
import { recordsRoutes } from './modules/records/records.routes.js';
import { createRecordsService } from './modules/records/records.service.js';
import { rpcRoutes } from './modules/records/rpc.routes.js';
import { createRpcService } from './modules/records/rpc.service.js';
import { createSchemaCache } from './modules/records/schema-cache.js';
import { timezoneCheck } from './modules/records/timezone.js';
import { secretsPlugin } from './modules/secrets/index.js';
import { storagePlugin } from './modules/storage/index.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface AppOptions {
  /** pino logger options; false silences the log (tests). */
  logger?: boolean | Record<string, unknown>;
}

export async function buildApp(deps: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: deps.config.logLevel },
    bodyLimit: deps.config.maxBodyBytes,
    trustProxy: deps.config.trustProxy,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>();

  // Fastify parses text/plain bodies into strings by default, which turns a wrong content type
  // into a confusing "expected object" validation error. JSON routes answer 415 instead; a route
  // that takes other bodies registers its own parser in its own scope.
  app.removeContentTypeParser('text/plain');

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
  registerAccessControl(app, deps);

  const anyOrigin = deps.config.corsOrigins.includes('*');
  await app.register(cors, {
    origin: anyOrigin ? true : deps.config.corsOrigins,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposedHeaders: ['Content-Range', 'Preference-Applied', 'X-Request-Id', 'Retry-After'],
  });
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
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const mailer = createMailer(deps, (email) => app.log.info({ email }, 'email not sent (no SMTP configured): logged instead'));
  const auth = createAuthServices(deps, mailer, (err, what) => app.log.warn({ err }, `${what} could not be delivered`));
  await app.register(healthRoutes(deps));
  await app.register(userRoutes(deps, auth));
  await app.register(sessionRoutes(deps, auth));
  await app.register(adminSessionRoutes(deps, auth));
  await app.register(configRoutes(deps));
  await app.register(emailFlowRoutes(deps, auth));
  await app.register(emailRoutes(deps));
  await app.register(oauthConfigRoutes(deps));
  await app.register(
    oauthRoutes(deps, createOAuthService(deps, auth.sessions), createIdTokenService(deps, auth.sessions)),
  );
  await app.register(keyRoutes(deps));

  const schemaCache = await createSchemaCache(deps.sql, deps.config.recordsSchemas);
  app.addHook('onClose', () => schemaCache.close());
  const pgrstOptions = { maxRows: deps.config.recordsMaxRows, schemas: deps.config.recordsSchemas, timezones: timezoneCheck(deps.sql) };
  await app.register(recordsRoutes(createRecordsService(deps, schemaCache, pgrstOptions)));
  const rpc = createRpcService(deps, schemaCache, pgrstOptions);
  await app.register(rpcRoutes(rpc));
  await app.register(migrationsRoutes(createMigrationsService(deps, () => schemaCache.refreshIfChanged())));
  await app.register(rawSqlRoutes(createRawSqlService(deps, () => schemaCache.refreshIfChanged())));
  await app.register(databaseMetadataRoutes(deps));
  await app.register(tableAdminRoutes(createTableAdminService(deps, () => schemaCache.refreshIfChanged())));
  await app.register(databaseObjectsRoutes(deps));
  await app.register(exportRoutes(createExportService(deps)));
  await app.register(metadataRoutes(createMetadataService(deps)));

  await app.register(secretsPlugin(deps));
  await app.register(aiRoutes(deps));
  deps.functions.setLogger((level, message, extra) => app.log[level](extra ?? {}, message));
  await app.register(functionsRoutes(deps, createFunctionsService(deps)));
  await app.register(invokeRoutes(deps));
  await app.register(paymentsPlugin(deps));
  await app.register(storagePlugin(deps));

  return app;
}
