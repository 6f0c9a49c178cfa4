// The site's settings: its slug (the reference's PUT /api/deployments/slug), the SPA fallback and
// retention, the reference's deployment metadata, and custom domains mapped by the Host header.
// A slug or domain that would put the site on the API's or the functions' host is refused.
import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import type { SiteDirectory } from './site-directory.js';
import * as repo from './sites.repo.js';
import type { CustomDomain, Site } from './sites.schemas.js';

const DEFAULT_SLUG = 'app';

export function createSiteSettingsService(
  deps: Pick<Deps, 'sql' | 'clock' | 'config'>,
  directory: SiteDirectory,
  prune: () => Promise<void>,
) {
  const { sql, config } = deps;

  const describe = (): Site => {
    const site = directory.current();
    return {
      slug: site.slug,
      url: directory.url(),
      urls: directory.urls(),
      liveDeploymentId: site.liveDeploymentId,
      spaFallback: site.spaFallback,
      retention: site.retention,
      buildsEnabled: config.sites.builds,
      domains: site.domains,
    };
  };

  const customDomain = (domain: string): CustomDomain => {
    const labels = domain.split('.');
    return {
      domain,
      apexDomain: labels.slice(-2).join('.'),
      // Self-hosted: Plinth serves whatever Host reaches it; DNS is the operator's (docs/sites.md).
      verified: true,
      misconfigured: false,
      verification: [],
      cnameTarget: new URL(directory.url()).hostname,
      aRecordValue: null,
    };
  };

  /** A host that is (or would shadow) the API's or the functions': never a site's. */
  const refuseReserved = (hosts: string[], what: string) => {
    const reserved = directory.reservedHosts();
    const clash = hosts.find((h) => reserved.has(h));
    if (clash) {
      throw new AppError('VALIDATION_ERROR', `${what} would put the site on ${clash}, the API's own host.`, {
        nextActions: 'Pick another name: the API, the dashboard and functions never share a host with the site.',
      });
    }
  };

  return {
    site: describe,

    async update(change: { spaFallback?: boolean; retention?: number }) {
      await repo.updateSite(sql, change);
      await directory.reload();
      if (change.retention !== undefined) await prune();
      return describe();
    },

    async setSlug(slug: string | null) {
      const next = slug ?? DEFAULT_SLUG;
      refuseReserved(directory.hostsOfSlug(next), `The slug "${next}"`);
      await repo.setSlug(sql, next);
      await directory.reload();
      return { success: true, slug: next, domain: new URL(directory.url()).host };
    },

    metadata() {
      const site = directory.current();
      const [custom] = site.domains;
      return {
        currentDeploymentId: site.liveDeploymentId,
        defaultDomainUrl: directory.url(),
        customDomainUrl: custom ? `${new URL(config.apiBaseUrl).protocol}//${custom}` : null,
      };
    },

    listDomains: () => ({ domains: directory.current().domains.map(customDomain) }),

    async addDomain(domain: string) {
      refuseReserved([domain], `The domain "${domain}"`);
      if (domain.endsWith('.localhost') || (config.sites.domain && domain.endsWith(`.${config.sites.domain}`))) {
        throw new AppError('VALIDATION_ERROR', `${domain} is under a domain Plinth gives sites by slug.`, {
          nextActions: 'Change the slug with PUT /api/deployments/slug instead.',
        });
      }
      if (!(await repo.insertDomain(sql, domain, deps.clock.now()))) {
        throw new AppError('DOMAIN_ALREADY_EXISTS', `The domain ${domain} is already added.`);
      }
      await directory.reload();
      return customDomain(domain);
    },

    async verifyDomain(domain: string) {
      if (!directory.current().domains.includes(domain)) {
        throw new AppError('DOMAIN_NOT_FOUND', `The domain ${domain} is not added.`, {
          nextActions: 'Add it with POST /api/deployments/domains.',
        });
      }
      return customDomain(domain);
    },

    async removeDomain(domain: string) {
      if (!(await repo.deleteDomain(sql, domain))) {
        throw new AppError('DOMAIN_NOT_FOUND', `The domain ${domain} is not added.`, {
          nextActions: 'List domains with GET /api/deployments/domains.',
        });
      }
      await directory.reload();
      return { success: true as const, message: `Domain ${domain} removed` };
    },
  };
}

export type SiteSettingsService = ReturnType<typeof createSiteSettingsService>;
