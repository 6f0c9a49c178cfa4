// Sites over HTTP: the reference's /api/deployments routes (admin) in its shapes, Plinth's
// promote, logs and site settings, and the two byte-carrying routes in a scope of their own: a
// file's raw bytes (application/octet-stream only) and the legacy zip (multipart, public, allowed
// by the signed token its create call answered). Fixed paths are registered before /{id}.
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { DeploymentsService } from './deployments.service.js';
import type { SiteSettingsService } from './site-settings.service.js';
import {
  addDomainSchema,
  createDeploymentResponseSchema,
  createDirectDeploymentResponseSchema,
  createDirectDeploymentSchema,
  customDomainSchema,
  deploymentFileParams,
  deploymentIdParams,
  deploymentLogsSchema,
  deploymentSchema,
  domainParams,
  listQuerySchema,
  manifestFileSchema,
  messageSchema,
  metadataResponseSchema,
  siteSchema,
  startDeploymentSchema,
  updateSiteSchema,
  updateSlugResponseSchema,
  updateSlugSchema,
} from './sites.schemas.js';

const tags = ['sites'];
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const admin = { access: 'admin' as const };

export function siteUploadRoutes(deployments: DeploymentsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    await app.register(multipart);
    app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

    app.put('/api/deployments/:id/files/:fileId/content', {
      config: admin,
      schema: {
        tags,
        summary: "Upload one manifest file's bytes (application/octet-stream; SHA-1 and size checked)",
        security,
        params: deploymentFileParams,
        response: { 200: manifestFileSchema.extend({ uploadedAt: z.string() }) },
      },
      handler: (request) => {
        if (!request.body) {
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'Deployment file content must be uploaded as application/octet-stream.',
            {
              nextActions: 'Send the raw bytes with Content-Type: application/octet-stream.',
            },
          );
        }
        return deployments.uploadFile(request.params.id, request.params.fileId, request.body as Readable);
      },
    });

    app.post('/api/deployments/:id/source', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Upload the legacy source zip (multipart: the uploadFields, then the field "file")',
        params: deploymentIdParams,
        response: { 204: z.null() },
      },
      handler: async (request, reply) => {
        if (!request.isMultipart()) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The source zip is a multipart/form-data upload.', {
            nextActions: 'POST a form with the uploadFields, then the zip as the field "file".',
          });
        }
        let token: string | undefined;
        let received = false;
        const parts = request.parts({
          limits: { fields: 10, files: 1, fileSize: deployments.limits.maxTotalBytes + 1 },
        });
        for await (const part of parts) {
          if (part.type === 'field') {
            if (part.fieldname === 'token') token = String(part.value);
            continue;
          }
          // The token comes first: no byte is stored for an upload nobody allowed.
          deployments.checkUploadToken(request.params.id, token);
          if (part.fieldname !== 'file') throw new AppError('VALIDATION_ERROR', 'The zip goes in the field "file".');
          await deployments.receiveSource(request.params.id, part.file);
          received = true;
        }
        if (!received) {
          deployments.checkUploadToken(request.params.id, token);
          throw new AppError('VALIDATION_ERROR', 'No file was sent.', {
            nextActions: 'Send the zip as the field "file".',
          });
        }
        return reply.code(204).send(null);
      },
    });
  };
}

export function deploymentsRoutes(
  deployments: DeploymentsService,
  settings: SiteSettingsService,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/deployments', {
      config: admin,
      schema: {
        tags,
        summary: 'Create a deployment for the legacy zip flow: answers where to upload the zip',
        security,
        response: { 201: createDeploymentResponseSchema },
      },
      handler: async (_request, reply) => reply.code(201).send(await deployments.createLegacy()),
    });

    app.post('/api/deployments/direct', {
      config: admin,
      schema: {
        tags,
        summary: 'Create a deployment from a manifest of files (path, SHA-1, size): answers the files to upload',
        security,
        body: createDirectDeploymentSchema,
        response: { 201: createDirectDeploymentResponseSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await deployments.createDirect(request.body.files)),
    });

    app.get('/api/deployments', {
      config: admin,
      schema: {
        tags,
        summary: 'Deployments, newest first (Content-Range; 206 when partial)',
        security,
        querystring: listQuerySchema,
        response: { 200: deploymentSchema.array(), 206: deploymentSchema.array() },
      },
      handler: async (request, reply) => {
        const { limit, offset } = request.query;
        const { data, total } = await deployments.list(limit, offset);
        const end = Math.min(offset + data.length - 1, total - 1);
        reply.header('content-range', `${offset}-${end}/${total}`).header('preference-applied', 'count=exact');
        return reply.code(data.length < total ? 206 : 200).send(data);
      },
    });

    app.get('/api/deployments/metadata', {
      config: admin,
      schema: {
        tags,
        summary: 'The live deployment and the site addresses',
        security,
        response: { 200: metadataResponseSchema },
      },
      handler: () => settings.metadata(),
    });

    app.get('/api/deployments/site', {
      config: admin,
      schema: {
        tags,
        summary: 'The site: slug, addresses, live deployment, settings, domains',
        security,
        response: { 200: siteSchema },
      },
      handler: () => settings.site(),
    });

    app.patch('/api/deployments/site', {
      config: admin,
      schema: {
        tags,
        summary: 'Change the single-page-app fallback or how many READY deployments are kept',
        security,
        body: updateSiteSchema,
        response: { 200: siteSchema },
      },
      handler: (request) => settings.update(request.body),
    });

    app.put('/api/deployments/slug', {
      config: admin,
      schema: {
        tags,
        summary: 'Change the slug the site is served under (null: the default)',
        security,
        body: updateSlugSchema,
        response: { 200: updateSlugResponseSchema },
      },
      handler: (request) => settings.setSlug(request.body.slug),
    });

    app.get('/api/deployments/domains', {
      config: admin,
      schema: {
        tags,
        summary: 'Custom domains',
        security,
        response: { 200: z.object({ domains: customDomainSchema.array() }) },
      },
      handler: () => settings.listDomains(),
    });

    app.post('/api/deployments/domains', {
      config: admin,
      schema: {
        tags,
        summary: 'Add a custom domain (mapped by the Host header)',
        security,
        body: addDomainSchema,
        response: { 201: customDomainSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await settings.addDomain(request.body.domain)),
    });

    app.post('/api/deployments/domains/:domain/verify', {
      config: admin,
      schema: {
        tags,
        summary: 'A custom domain as configured',
        security,
        params: domainParams,
        response: { 200: customDomainSchema },
      },
      handler: (request) => settings.verifyDomain(request.params.domain),
    });

    app.delete('/api/deployments/domains/:domain', {
      config: admin,
      schema: {
        tags,
        summary: 'Remove a custom domain',
        security,
        params: domainParams,
        response: { 200: messageSchema },
      },
      handler: (request) => settings.removeDomain(request.params.domain),
    });

    app.get('/api/deployments/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'One deployment: status and url',
        security,
        params: deploymentIdParams,
        response: { 200: deploymentSchema },
      },
      handler: (request) => deployments.get(request.params.id),
    });

    app.get('/api/deployments/:id/logs', {
      config: admin,
      schema: {
        tags,
        summary: "A deployment's build log",
        security,
        params: deploymentIdParams,
        response: { 200: deploymentLogsSchema },
      },
      handler: (request) => deployments.logs(request.params.id),
    });

    app.post('/api/deployments/:id/start', {
      config: admin,
      schema: {
        tags,
        summary: 'Start a deployment once its files are uploaded: published as is, or built first (projectSettings)',
        security,
        params: deploymentIdParams,
        body: startDeploymentSchema,
        response: { 200: deploymentSchema },
      },
      handler: (request) => deployments.start(request.params.id, request.body),
    });

    app.post('/api/deployments/:id/promote', {
      config: admin,
      schema: {
        tags,
        summary: 'Make a READY deployment the live one (rollback to an earlier one)',
        security,
        params: deploymentIdParams,
        response: { 200: deploymentSchema },
      },
      handler: (request) => deployments.promote(request.params.id),
    });
  };
}
