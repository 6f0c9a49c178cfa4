// Which hosts are the site's, and what it serves: the one site row (slug, live deployment, SPA
// fallback) and its custom domains, kept in memory and reloaded on every server when any of them
// changes (NOTIFY), so a request on an API host costs no query and a switch of the live
// deployment reaches every server at once. The API's and the functions' own hosts are never a
// site's, whatever the slug or a domain says.
import type { Config } from '../../config.js';
import type { Sql } from '../../core/db.js';
import type { CorsGrant, OriginPolicy } from '../../http/cors.js';
import * as repo from './sites.repo.js';

export interface SiteDirectory {
  /** The site as last loaded. */
  current(): repo.SiteRow;
  /** Whether a request for this host name (lower case, no port) is the site's. */
  isSiteHost(hostname: string): boolean;
  /** The site's address (SITES_DOMAIN's when set, else {slug}.localhost:PORT). */
  url(slug?: string): string;
  /** Every address the site answers on. */
  urls(): string[];
  /** The host names a slug would be served at (to refuse one that is the API's). */
  hostsOfSlug(slug: string): string[];
  /** Hosts that are never a site's: the API's and the functions origin's. */
  reservedHosts(): Set<string>;
  /** CORS: the site's own origins may call the API with credentials, as named CORS_ORIGINS do. */
  withSiteOrigins(policy: OriginPolicy): OriginPolicy;
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function createSiteDirectory(
  deps: { sql: Sql; config: Config },
  onError: (err: unknown) => void,
): Promise<SiteDirectory> {
  const { config } = deps;
  const api = new URL(config.apiBaseUrl);
  const reserved = new Set([api.hostname.toLowerCase()]);
  if (config.functions.origin) reserved.add(new URL(config.functions.origin).hostname.toLowerCase());
  const sitesDomain = config.sites.domain;

  let site = await repo.loadSite(deps.sql);
  let domains = new Set(site.domains);
  const reload = async () => {
    site = await repo.loadSite(deps.sql);
    domains = new Set(site.domains);
  };

  let subscribed = false;
  const subscription = await deps.sql.listen(
    repo.SITES_CHANNEL,
    () => void reload().catch(onError),
    () => {
      // Changes announced while the connection was down are read back.
      if (subscribed) reload().catch(onError);
      subscribed = true;
    },
  );

  const hostsOfSlug = (slug: string) => [`${slug}.localhost`, ...(sitesDomain ? [`${slug}.${sitesDomain}`] : [])];

  const isSiteHost = (hostname: string) => {
    if (reserved.has(hostname)) return false;
    const { slug } = site;
    return (
      hostname === `${slug}.localhost` ||
      (sitesDomain !== undefined && hostname === `${slug}.${sitesDomain}`) ||
      domains.has(hostname)
    );
  };

  const url = (slug = site.slug) =>
    sitesDomain
      ? `${api.protocol}//${slug}.${sitesDomain}${api.port ? `:${api.port}` : ''}`
      : `http://${slug}.localhost:${config.port}`;

  return {
    current: () => site,
    isSiteHost,
    url,
    urls: () => [
      `http://${site.slug}.localhost:${config.port}`,
      ...(sitesDomain ? [url()] : []),
      ...[...domains].map((d) => `${api.protocol}//${d}`),
    ],
    hostsOfSlug,
    reservedHosts: () => reserved,
    withSiteOrigins(policy) {
      return (origin): CorsGrant => {
        const grant = policy(origin);
        if (grant === 'credentials' || origin === 'null') return grant;
        let hostname: string;
        try {
          hostname = new URL(origin).hostname;
        } catch {
          return grant;
        }
        return isSiteHost(hostname) ? 'credentials' : grant;
      };
    },
    reload,
    close: () => subscription.unlisten(),
  };
}
