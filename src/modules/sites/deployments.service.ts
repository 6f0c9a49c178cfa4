// Deployments, as the reference's API shapes them: a manifest of files by SHA-1 (files already
// held are not asked for again), their bytes one by one (checked against the manifest), or a
// source zip through a signed upload URL; then start: published as uploaded, or built first in a
// separate process. A deployment never changes once READY; the site's live one is switched by a
// single row update, to any READY deployment (rollback), and old ones are pruned past the
// retention.
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mime from 'mime-types';
import type { Deps } from '../../deps.js';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { hmacBase64Url, safeEqual } from '../../core/ids.js';
import { runBuild } from './site-builder.js';
import type { SiteBlobs } from './site-blobs.js';
import type { SiteDirectory } from './site-directory.js';
import {
  insideFolder,
  type Limits,
  type StoredFile,
  storeFolder,
  storeZipEntries,
  writeFiles,
} from './site-sources.js';
import * as repo from './sites.repo.js';
import type { Deployment, ManifestFile, StartDeployment } from './sites.schemas.js';

const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
/** Uploads nobody started within this long are pruned; blobs unused this long may go. */
const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;
const BLOB_GRACE_MS = 60 * 60 * 1000;
const OUTPUT_CANDIDATES = ['dist', 'build', 'out', 'public'];

export type DeploymentsDeps = Pick<Deps, 'sql' | 'clock' | 'config' | 'hmacKeys' | 'blobStore'>;

const notFound = (id: string) =>
  new AppError('DEPLOYMENT_NOT_FOUND', `Deployment not found: ${id}`, {
    nextActions: 'List deployments with GET /api/deployments.',
  });

/** Dotfiles (.env, .git/…) are never served; /.well-known is. */
const isPublishable = (p: string) => p.split('/').every((seg) => !seg.startsWith('.') || seg === '.well-known');

export function createDeploymentsService(
  deps: DeploymentsDeps,
  blobs: SiteBlobs,
  directory: SiteDirectory,
  log: { error(obj: unknown, msg: string): void },
) {
  const { sql, clock, config } = deps;
  const limits: Limits = config.sites;
  const now = () => clock.now();
  /** Builds and publications still running here (tests and shutdown wait for them). */
  const running = new Set<Promise<unknown>>();
  /** Builds run one at a time on each server (QUEUED until their turn): N deploys are not N builds at once. */
  let buildQueue: Promise<unknown> = Promise.resolve();
  /** Aborted when the server closes: running and queued builds stop (and are marked failed). */
  const stopping = new AbortController();

  const present = (row: repo.RunRow): Deployment => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    live: directory.current().liveDeploymentId === row.id,
  });

  const fileOut = (f: repo.FileRow): ManifestFile => ({
    path: f.path,
    sha: f.sha,
    size: f.size,
    fileId: f.fileId,
    uploadedAt: f.uploadedAt?.toISOString() ?? null,
  });

  const mustFind = async (id: string, db: Parameters<typeof repo.findRun>[0] = sql, lock = false) => {
    const run = await repo.findRun(db, id, lock);
    if (!run) throw notFound(id);
    return run;
  };

  const uploadToken = (id: string, expires: number) =>
    `${expires}.${hmacBase64Url(deps.hmacKeys.siteUploads, `site-source:${id}:${expires}`)}`;

  function checkLimits(files: { size: number }[]) {
    const total = files.reduce((sum, f) => sum + f.size, 0);
    const big = files.find((f) => f.size > limits.maxFileBytes);
    if (files.length > limits.maxFiles || total > limits.maxTotalBytes || big) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        big
          ? `A site file may have at most ${limits.maxFileBytes} bytes.`
          : `A deployment may have at most ${limits.maxFiles} files and ${limits.maxTotalBytes} bytes in all.`,
        {
          nextActions:
            'Leave out what the site does not serve, or raise SITES_MAX_FILE_BYTES / SITES_MAX_FILES / SITES_MAX_TOTAL_BYTES.',
        },
      );
    }
  }

  /** Stores the served files of a deployment, precompressed, and makes it READY (and live if newest). */
  async function publish(id: string, files: StoredFile[], notes: string[]): Promise<repo.RunRow> {
    const assets = files
      .filter((f) => isPublishable(f.path))
      .map((f) => ({ ...f, contentType: mime.contentType(path.posix.extname(f.path)) || 'application/octet-stream' }));
    for (const skipped of files.filter((f) => !isPublishable(f.path)))
      notes.push(`not served: ${skipped.path} (a dotfile)`);
    if (!assets.some((a) => a.path === 'index.html')) notes.push('no index.html at the top: / answers 404');
    const done = new Set<string>();
    for (const asset of assets) {
      if (done.has(asset.sha)) continue;
      done.add(asset.sha);
      await blobs.precompress(asset.sha, asset.contentType);
    }
    const row = await withTx(sql, async (tx) => {
      await repo.insertAssets(tx, id, assets);
      const updated = await repo.updateRun(tx, id, {
        status: 'READY',
        url: directory.url(),
        metadata: { publishedAt: now().toISOString(), servedFileCount: assets.length, notes },
        now: now(),
      });
      await repo.setLive(tx, id, true);
      return updated;
    });
    await directory.reload();
    track(prune());
    return row;
  }

  async function fail(id: string, err: unknown): Promise<void> {
    const message = err instanceof AppError ? err.message : 'The deployment failed; see the server log.';
    if (!(err instanceof AppError)) log.error({ err, deploymentId: id }, 'site deployment failed');
    await repo.updateRun(sql, id, { status: 'ERROR', metadata: { error: message }, now: now() }).catch(() => {});
  }

  const track = <T>(work: Promise<T>) => {
    const quiet = work.catch((err) => log.error({ err }, 'site pruning failed'));
    running.add(quiet);
    void quiet.finally(() => running.delete(quiet));
  };

  /** The uploaded files of a run with their blob ids. */
  async function sourcesOf(id: string): Promise<(StoredFile & { blobId: string })[]> {
    const files = await repo.filesOf(sql, id);
    const out: (StoredFile & { blobId: string })[] = [];
    for (const f of files) {
      const identity = (await repo.blobsOf(sql, f.sha)).find((b) => b.encoding === 'identity');
      if (!identity)
        throw new AppError('DEPLOYMENT_INVALID_FILE', `The bytes of ${f.path} are no longer held.`, {
          nextActions: 'Deploy again.',
        });
      out.push({ path: f.path, sha: f.sha, size: f.size, blobId: identity.blobId });
    }
    return out;
  }

  /** Copies the sources into a scratch folder, runs the commands, and publishes the output folder. */
  async function buildAndPublish(id: string, input: StartDeployment): Promise<void> {
    const settings = input.projectSettings ?? {};
    const scratch = await mkdtemp(path.join(tmpdir(), 'plinth-site-build-'));
    try {
      const src = path.join(scratch, 'src');
      const home = path.join(scratch, 'home');
      await mkdir(home, { recursive: true });
      await mkdir(src, { recursive: true });
      await writeFiles(src, await sourcesOf(id), (blobId) => blobs.read(blobId));
      const cwd = insideFolder(src, settings.rootDirectory, 'rootDirectory');
      const outcome = await runBuild({
        cwd,
        home,
        installCommand: settings.installCommand,
        buildCommand: settings.buildCommand,
        envVars: input.envVars ?? [],
        timeoutMs: config.sites.buildTimeoutMs,
        memoryMb: config.sites.buildMemoryMb,
        path: config.sites.buildPath,
        signal: stopping.signal,
      });
      const notes: string[] = [];
      const build = {
        exitCode: outcome.exitCode,
        durationMs: outcome.durationMs,
        killedFor: outcome.killedFor ?? null,
      };
      if (!outcome.ok) {
        await repo.setBuildLog(sql, id, outcome.log);
        const stopped = {
          timeout: `it ran past ${config.sites.buildTimeoutMs} ms`,
          memory: `it used more than ${config.sites.buildMemoryMb} MB`,
          shutdown: 'the server shut down',
        };
        const why = outcome.killedFor
          ? `The build was stopped: ${stopped[outcome.killedFor]}.`
          : `The build failed with exit code ${outcome.exitCode}.`;
        await repo.updateRun(sql, id, { status: 'ERROR', metadata: { build, error: why }, now: now() });
        return;
      }
      let out = settings.outputDirectory ? insideFolder(cwd, settings.outputDirectory, 'outputDirectory') : undefined;
      if (!out) {
        for (const name of OUTPUT_CANDIDATES) {
          const candidate = path.join(cwd, name);
          if ((await stat(candidate).catch(() => null))?.isDirectory()) {
            out = candidate;
            break;
          }
        }
      }
      const logLines: string[] = [];
      if (!out) {
        await repo.setBuildLog(
          sql,
          id,
          `${outcome.log}\nNo output folder: set projectSettings.outputDirectory (tried ${OUTPUT_CANDIDATES.join(', ')}).\n`,
        );
        await repo.updateRun(sql, id, {
          status: 'ERROR',
          metadata: {
            build,
            error: `The build wrote none of ${OUTPUT_CANDIDATES.join(', ')}; set projectSettings.outputDirectory.`,
          },
          now: now(),
        });
        return;
      }
      const files = await storeFolder(out, blobs, limits, (line) => logLines.push(line));
      await repo.setBuildLog(sql, id, `${outcome.log}${logLines.length ? `\n${logLines.join('\n')}\n` : ''}`);
      await repo.updateRun(sql, id, { status: 'BUILDING', metadata: { build }, now: now() });
      await publish(id, files, notes);
    } finally {
      await rm(scratch, { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Unpacks a legacy source zip into the run's file rows (all uploaded). */
  async function unpackSource(id: string, blobId: string): Promise<void> {
    const scratch = await mkdtemp(path.join(tmpdir(), 'plinth-site-zip-'));
    try {
      const zipFile = path.join(scratch, 'source.zip');
      const body = await blobs.read(blobId);
      if (!body)
        throw new AppError('VALIDATION_ERROR', 'The source zip was not uploaded.', {
          nextActions: 'Upload it to the uploadUrl first.',
        });
      await pipeline(body, createWriteStream(zipFile));
      const stored = await storeZipEntries(zipFile, blobs, limits);
      if (stored.length === 0)
        throw new AppError('DEPLOYMENT_INVALID_FILE', 'No files found in source zip.', {
          nextActions: 'Zip the site folder.',
        });
      await repo.insertFiles(
        sql,
        id,
        stored.map((f) => ({ ...f, uploaded: true })),
        now(),
      );
    } finally {
      await rm(scratch, { recursive: true, force: true }).catch(() => {});
    }
    await blobs.remove([blobId]);
  }

  async function prune(): Promise<void> {
    // A build whose server stopped midway never ends by itself: past twice the time limit it failed.
    await repo.failAbandonedBuilds(sql, new Date(now().getTime() - 2 * config.sites.buildTimeoutMs - 60_000), now());
    const site = directory.current();
    const deleted = await repo.pruneRuns(sql, site.retention, new Date(now().getTime() - STALE_UPLOAD_MS));
    if (deleted.length === 0) return;
    // A legacy zip never started is in the blob store under its own id, not by SHA-1.
    await blobs.remove(deleted.map((d) => d.sourceBlobId).filter((id): id is string => id !== null));
    await blobs.remove(await repo.pruneBlobs(sql, new Date(now().getTime() - BLOB_GRACE_MS)));
  }

  return {
    limits,

    async createDirect(files: { path: string; sha: string; size: number }[]) {
      checkLimits(files);
      return withTx(sql, async (tx) => {
        const held = await repo.touchHeldBlobs(tx, files, now());
        const run = await repo.insertRun(tx, {
          status: 'WAITING',
          metadata: {
            uploadMode: 'direct',
            fileCount: files.length,
            totalSizeBytes: files.reduce((sum, f) => sum + f.size, 0),
            manifestCreatedAt: now().toISOString(),
          },
          now: now(),
        });
        const rows = await repo.insertFiles(
          tx,
          run.id,
          files.map((f) => ({ ...f, uploaded: held.has(f.sha) })),
          now(),
        );
        return { id: run.id, status: run.status, files: rows.filter((r) => r.uploadedAt === null).map(fileOut) };
      });
    },

    async uploadFile(id: string, fileId: string, body: Readable) {
      const run = await mustFind(id);
      if (run.status !== 'WAITING' && run.status !== 'UPLOADING') {
        throw new AppError(
          'CONFLICT',
          `Deployment files can only be uploaded while status is WAITING or UPLOADING. Current status: ${run.status}`,
          {
            nextActions: 'Create a new deployment with POST /api/deployments/direct.',
          },
        );
      }
      const file = await repo.findFile(sql, id, fileId);
      if (!file)
        throw new AppError('DEPLOYMENT_NOT_FOUND', `Deployment file not found: ${fileId}`, {
          nextActions: 'Use a fileId the manifest answered.',
        });
      await blobs.store(body, limits.maxFileBytes, { sha: file.sha, size: file.size });
      const uploaded = await withTx(sql, async (tx) => {
        const row = await repo.markUploaded(tx, id, fileId, now());
        await repo.updateRun(tx, id, {
          status: 'UPLOADING',
          metadata: { lastFileUploadedAt: now().toISOString() },
          now: now(),
        });
        return row;
      });
      return { ...fileOut(uploaded), uploadedAt: (uploaded.uploadedAt as Date).toISOString() };
    },

    async createLegacy() {
      const run = await repo.insertRun(sql, { status: 'WAITING', metadata: { uploadMode: 'legacy' }, now: now() });
      const expires = now().getTime() + UPLOAD_URL_TTL_MS;
      return {
        id: run.id,
        uploadUrl: `${config.apiBaseUrl}/api/deployments/${run.id}/source`,
        uploadFields: { token: uploadToken(run.id, expires) },
      };
    },

    /** Checks a legacy upload's token (signed for this deployment, not expired). */
    checkUploadToken(id: string, token: string | undefined) {
      const [expires] = (token ?? '').split('.');
      const ok =
        token !== undefined && Number(expires) > now().getTime() && safeEqual(token, uploadToken(id, Number(expires)));
      if (!ok) {
        throw new AppError('UNAUTHORIZED', 'The upload token is missing, expired or not for this deployment.', {
          nextActions: 'Send the uploadFields that POST /api/deployments answered before the file, within an hour.',
        });
      }
    },

    async receiveSource(id: string, body: Readable) {
      const run = await mustFind(id);
      if (run.status !== 'WAITING' && run.status !== 'UPLOADING') {
        throw new AppError(
          'CONFLICT',
          `The source can only be uploaded while status is WAITING or UPLOADING. Current status: ${run.status}`,
        );
      }
      const blobId = randomUUID();
      const staged = await deps.blobStore.stage(blobId, body, limits.maxTotalBytes);
      await deps.blobStore.promote(blobId);
      const previous = run.metadata?.sourceBlobId;
      await repo.updateRun(sql, id, {
        status: 'UPLOADING',
        metadata: { sourceBlobId: blobId, sourceSizeBytes: staged.size },
        now: now(),
      });
      if (typeof previous === 'string') await blobs.remove([previous]);
    },

    async start(id: string, input: StartDeployment) {
      const settings = input.projectSettings ?? {};
      const needsBuild = !!(settings.buildCommand?.trim() || settings.installCommand?.trim());
      if (needsBuild && !config.sites.builds) {
        throw new AppError('VALIDATION_ERROR', 'Building is switched off on this server (SITES_BUILDS=false).', {
          nextActions: 'Build locally and deploy the output folder without a buildCommand, or set SITES_BUILDS=true.',
        });
      }
      insideFolder('/', settings.rootDirectory, 'rootDirectory');
      insideFolder('/', settings.outputDirectory, 'outputDirectory');
      // Claimed under a row lock: two starts of one deployment cannot both run.
      const claimed = await withTx(sql, async (tx) => {
        const run = await mustFind(id, tx, true);
        if (run.status !== 'WAITING' && run.status !== 'UPLOADING') {
          throw new AppError('CONFLICT', `Deployment is not ready to start. Current status: ${run.status}`, {
            nextActions:
              'Create a new deployment to deploy again, or promote this one with POST /api/deployments/{id}/promote.',
          });
        }
        const legacy = run.metadata?.uploadMode === 'legacy';
        if (legacy && typeof run.metadata?.sourceBlobId !== 'string') {
          throw new AppError('VALIDATION_ERROR', 'Source zip file not found. Please upload the source files first.', {
            nextActions: 'POST the zip to the uploadUrl with its uploadFields, then start again.',
          });
        }
        if (!legacy) {
          const missing = (await repo.filesOf(tx, id)).filter((f) => f.uploadedAt === null);
          if (missing.length > 0) {
            throw new AppError(
              'VALIDATION_ERROR',
              `Deployment has ${missing.length} file(s) that have not been uploaded yet.`,
              {
                details: { missing: missing.slice(0, 20).map((f) => f.path) },
                nextActions: 'PUT each file to /api/deployments/{id}/files/{fileId}/content, then start again.',
              },
            );
          }
        }
        return repo.updateRun(tx, id, {
          status: needsBuild ? 'QUEUED' : 'UPLOADING',
          metadata: {
            projectSettings: settings,
            envVarKeys: (input.envVars ?? []).map((v) => v.key),
            meta: input.meta ?? {},
            startedAt: now().toISOString(),
          },
          now: now(),
        });
      });
      const work = (async () => {
        if (claimed.metadata?.uploadMode === 'legacy') await unpackSource(id, claimed.metadata.sourceBlobId as string);
        if (needsBuild) {
          const turn = buildQueue.then(async () => {
            await repo.updateRun(sql, id, {
              status: 'BUILDING',
              metadata: { buildStartedAt: now().toISOString() },
              now: now(),
            });
            await buildAndPublish(id, input);
          });
          buildQueue = turn.catch(() => {});
          return turn;
        }
        const sources = await sourcesOf(id);
        // Without a build, the served folder is outputDirectory inside rootDirectory (both optional).
        const base = insideFolder('/', settings.rootDirectory, 'rootDirectory');
        const folder = insideFolder(base, settings.outputDirectory, 'outputDirectory').slice(1);
        let files: StoredFile[] = sources;
        if (folder !== '') {
          const prefix = `${folder}/`;
          files = sources
            .filter((f) => f.path.startsWith(prefix))
            .map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
        }
        await publish(id, files, []);
      })().catch(async (err) => {
        await fail(id, err);
        // A start answered at once answers its failure; a build's is read from the deployment.
        if (!needsBuild) throw err;
      });
      if (needsBuild) {
        // Builds take their time: the answer says QUEUED, GET /api/deployments/{id} says how it ended.
        running.add(work);
        void work.finally(() => running.delete(work));
        return present(claimed);
      }
      await work;
      return present(await mustFind(id));
    },

    async list(limit: number, offset: number) {
      const { rows, total } = await repo.listRuns(sql, limit, offset);
      return { data: rows.map(present), total };
    },

    get: async (id: string) => present(await mustFind(id)),

    async logs(id: string) {
      const run = await mustFind(id);
      return { id, status: run.status, log: (await repo.buildLogOf(sql, id)) ?? null };
    },

    /** Makes a READY deployment the live one (a rollback when it is an earlier one). */
    async promote(id: string) {
      const run = await mustFind(id);
      if (run.status !== 'READY') {
        throw new AppError('CONFLICT', `Only a READY deployment can go live. Current status: ${run.status}`, {
          nextActions: 'Pick a READY deployment from GET /api/deployments.',
        });
      }
      await repo.setLive(sql, id, false);
      await directory.reload();
      return present(run);
    },

    prune,

    /** Stops the builds running or queued here (the server is closing). */
    stop: () => stopping.abort(),

    /** Resolves once the builds and publications started here have ended. */
    async settled() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

export type DeploymentsService = ReturnType<typeof createDeploymentsService>;
