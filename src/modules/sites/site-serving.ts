// Answers every request whose Host is the site's with the live deployment's files, before any API
// route, credential check or CORS header: a site host serves the site and nothing else, and the
// API's own host never serves a site file, so a site's scripts never run on the API's or the
// dashboard's origin. Files are looked up in the deployment's manifest (never on a file system),
// so no path can leave it. Caching: hashed assets for a year, HTML revalidated; ETags are the
// SHA-1 of the bytes sent; single byte ranges; Brotli/gzip variants made at publish time.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Sql } from '../../core/db.js';
import type { SiteBlobs } from './site-blobs.js';
import type { SiteDirectory } from './site-directory.js';
import * as repo from './sites.repo.js';

interface Variant {
  blobId: string;
  size: number;
}
interface Asset {
  sha: string;
  size: number;
  contentType: string;
  identity?: Variant;
  br?: Variant;
  gzip?: Variant;
}
type Manifest = Map<string, Asset>;

const MANIFESTS_KEPT = 8;
const YEAR = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** A file name carrying a content hash, as bundlers write them: app.3f9a1c2b.js, index-BxK9_q2a.css. */
const HASHED_NAME = /[.-](?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{8,}\.[A-Za-z0-9]+$/;

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'SAMEORIGIN',
  'cross-origin-opener-policy': 'same-origin-allow-popups',
  'content-security-policy': "frame-ancestors 'self'; object-src 'none'; base-uri 'self'",
};

function toManifest(rows: Awaited<ReturnType<typeof repo.assetsWithBlobs>>): Manifest {
  const manifest: Manifest = new Map();
  for (const row of rows) {
    const asset: Asset = { sha: row.sha, size: row.size, contentType: row.contentType };
    for (const blob of row.blobs) asset[blob.encoding] = { blobId: blob.blobId, size: Number(blob.size) };
    manifest.set(row.path, asset);
  }
  return manifest;
}

/** br or gzip when the client takes it (q > 0) and a variant exists; else the bytes as stored. */
function pickEncoding(acceptEncoding: string | undefined, asset: Asset): 'br' | 'gzip' | 'identity' {
  if (!acceptEncoding || (!asset.br && !asset.gzip)) return 'identity';
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) <= 0) continue;
    if (name) accepted.add(name);
  }
  if (asset.br && accepted.has('br')) return 'br';
  if (asset.gzip && accepted.has('gzip')) return 'gzip';
  return 'identity';
}

/** A single `bytes=` range of a `size`-byte body; null: ignore the header; 'unsatisfiable': 416. */
function parseRange(header: string, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m as unknown as [string, string, string];
  if (a === '' && b === '') return null;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

const etagMatches = (header: string | undefined, etag: string) =>
  header !== undefined &&
  (header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));

function notFound(reply: FastifyReply, message: string) {
  return reply
    .code(404)
    .headers({ ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': REVALIDATE })
    .send(message);
}

export function registerSiteServing(
  app: FastifyInstance,
  deps: { sql: Sql },
  directory: SiteDirectory,
  blobs: SiteBlobs,
) {
  const manifests = new Map<string, Promise<Manifest>>();
  const manifestOf = (runId: string) => {
    let found = manifests.get(runId);
    if (!found) {
      found = repo.assetsWithBlobs(deps.sql, runId).then(toManifest);
      found.catch(() => manifests.delete(runId));
      manifests.set(runId, found);
      // Deployments never change: the oldest loaded manifest is the one to forget.
      if (manifests.size > MANIFESTS_KEPT) manifests.delete(manifests.keys().next().value as string);
    }
    return found;
  };

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return reply
        .code(405)
        .headers({ ...SECURITY_HEADERS, allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .send('Method not allowed');
    }
    const site = directory.current();
    if (!site.liveDeploymentId) return notFound(reply, 'No deployment of this site is live yet.');
    const manifest = await manifestOf(site.liveDeploymentId);

    const rawPath = request.url.split('?')[0] as string;
    let pathname: string;
    try {
      pathname = decodeURIComponent(rawPath);
    } catch {
      return notFound(reply, 'Not found');
    }
    const key = pathname
      .split('/')
      .filter((s) => s !== '')
      .join('/');
    let path: string | undefined;
    let status = 200;
    if (key === '') path = manifest.has('index.html') ? 'index.html' : undefined;
    else if (manifest.has(key)) path = key;
    else if (manifest.has(`${key}/index.html`)) {
      // A folder's index: its relative links need the trailing slash.
      if (!pathname.endsWith('/')) {
        const query = request.url.slice(rawPath.length);
        return reply
          .code(308)
          .headers({ ...SECURITY_HEADERS, location: `/${encodeURI(key)}/${query}` })
          .send();
      }
      path = `${key}/index.html`;
    } else if (manifest.has(`${key}.html`)) path = `${key}.html`;
    if (path === undefined) {
      const lastSegment = key.split('/').pop() ?? '';
      const wantsPage = !lastSegment.includes('.') || (request.headers.accept ?? '').includes('text/html');
      if (site.spaFallback && wantsPage && manifest.has('index.html')) path = 'index.html';
      else if (manifest.has('404.html')) {
        path = '404.html';
        status = 404;
      } else return notFound(reply, 'Not found');
    }
    const asset = manifest.get(path) as Asset;
    const isHtml = asset.contentType.startsWith('text/html');
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': asset.contentType,
      'cache-control': isHtml || status !== 200 ? REVALIDATE : HASHED_NAME.test(path) ? YEAR : REVALIDATE,
      'accept-ranges': 'bytes',
    };
    if (request.protocol === 'https') headers['strict-transport-security'] = 'max-age=31536000';
    if (asset.br || asset.gzip) headers.vary = 'Accept-Encoding';

    // A range is of the bytes as stored: ranged requests get no compressed variant.
    const rangeHeader = status === 200 ? request.headers.range : undefined;
    const identityEtag = `"${asset.sha}"`;
    const ifRange = request.headers['if-range'];
    const useRange = rangeHeader !== undefined && (ifRange === undefined || ifRange === identityEtag);
    const encoding = useRange ? 'identity' : pickEncoding(request.headers['accept-encoding'], asset);
    const variant = encoding === 'identity' ? asset.identity : asset[encoding];
    if (!variant) return notFound(reply, 'Not found');
    const etag = encoding === 'identity' ? identityEtag : `"${asset.sha}-${encoding}"`;
    headers.etag = etag;
    if (encoding !== 'identity') headers['content-encoding'] = encoding;

    if (status === 200 && etagMatches(request.headers['if-none-match'], etag)) {
      return reply.code(304).headers(headers).send();
    }

    let range: { start: number; end: number } | undefined;
    if (useRange) {
      const parsed = parseRange(rangeHeader, variant.size);
      if (parsed === 'unsatisfiable') {
        return reply
          .code(416)
          .headers({
            ...headers,
            'content-range': `bytes */${variant.size}`,
            'content-type': 'text/plain; charset=utf-8',
          })
          .send('Range not satisfiable');
      }
      if (parsed) {
        range = parsed;
        status = 206;
        headers['content-range'] = `bytes ${parsed.start}-${parsed.end}/${variant.size}`;
      }
    }
    const length = range ? range.end - range.start + 1 : variant.size;
    headers['content-length'] = String(length);
    reply.code(status).headers(headers);
    if (request.method === 'HEAD' || length === 0) return reply.send();
    const body = await blobs.read(variant.blobId, range && variant.size > 0 ? range : undefined);
    if (!body) return notFound(reply, 'Not found');
    return reply.send(body);
  }

  // Callback style: requests on API hosts pass with one synchronous host check.
  app.addHook('onRequest', (request, reply, done) => {
    if (!directory.isSiteHost(request.hostname.toLowerCase())) return done();
    serve(request, reply).catch((err: unknown) => {
      if (!reply.sent) reply.send(err);
    });
  });
}
