// The sites module's face: the hosting (host directory, blobs, services) app.ts builds before
// CORS and access control, the hook that serves site hosts, and the plugin of its API routes.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { createDeploymentsService, type DeploymentsService } from './deployments.service.js';
import { createSiteBlobs } from './site-blobs.js';
import { createSiteDirectory, type SiteDirectory } from './site-directory.js';
import { registerSiteServing } from './site-serving.js';
import { createSiteSettingsService, type SiteSettingsService } from './site-settings.service.js';
import { deploymentsRoutes, siteUploadRoutes } from './sites.routes.js';

export interface SitesHosting {
  directory: SiteDirectory;
  deployments: DeploymentsService;
  settings: SiteSettingsService;
  /** Serves site hosts: call before access control so a site request meets no API hook. */
  serve(app: FastifyInstance): void;
  plugin: FastifyPluginAsyncZod;
  close(): Promise<void>;
}

export async function createSitesHosting(deps: Deps, log: FastifyBaseLogger): Promise<SitesHosting> {
  const directory = await createSiteDirectory(deps, (err) => log.error({ err }, 'reloading the site failed'));
  const blobs = createSiteBlobs(deps);
  const deployments = createDeploymentsService(deps, blobs, directory, log);
  const settings = createSiteSettingsService(deps, directory, () => deployments.prune());
  return {
    directory,
    deployments,
    settings,
    serve: (app) => registerSiteServing(app, deps, directory, blobs),
    plugin: async (app) => {
      await app.register(siteUploadRoutes(deployments));
      await app.register(deploymentsRoutes(deployments, settings));
    },
    async close() {
      deployments.stop();
      await deployments.settled();
      await directory.close();
    },
  };
}

export type { Deployment, Site } from './sites.schemas.js';
