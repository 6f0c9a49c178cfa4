// Serving transformed images: the object's own access check first (the caller's route decides
// how: credential, public bucket or signed URL), then the variant cache (keyed by the object's
// blob, so a replaced object never answers with its old variants), else one transformation in
// the bounded queue, stored as a variant; the cache is kept under its size bound, LRU first.
// A variant's bytes never change (same source blob, same parameters), so each server remembers
// where the variants it has seen are, and a hit costs no query beyond the access check: a
// remembered variant whose bytes are gone (evicted, or its object replaced) is simply made again.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { resolveTransform, type ResolvedTransform, type Transform, variantParams } from './image-params.js';
import { createWorkQueue } from './image-queue.js';
import { transformImage } from './image-transform.js';
import * as variants from './image-variants.repo.js';
import { createStorageConfig } from './storage-config.service.js';
import { claimBlob } from './storage.repo.js';
import { createStorageService, type ObjectRow } from './storage.service.js';

export interface ImageRequest {
  bucket: string;
  key: string;
  transform: Transform;
  /** What a request naming no format gets: Plinth's paths keep the source's, Supabase's pick by Accept. */
  defaultFormat: 'origin' | 'auto';
  /**
   * The object's access check for this caller (throws when it may not read it), and whether the
   * answer may sit in shared caches (no credential was needed: a public bucket).
   */
  find(): Promise<{ row: ObjectRow; shared: boolean }>;
  /** The URL pins the object's version (`v`): the answer never changes, so it is cached for a year. */
  pinned?: boolean;
}

export interface ImageCounts {
  hits: number;
  misses: number;
  evictions: number;
  refused: number;
  running: number;
  waiting: number;
}

interface Made {
  data: Buffer;
  mimeType: string;
}

class AlreadyStored extends Error {}

const YEAR = 31_536_000;
/** Variants each server remembers the place of (a few hundred bytes each). */
const REMEMBERED = 10_000;
/** A remembered hit marks its row used at most this often (the LRU order of eviction). */
const TOUCH_EVERY_MS = 60_000;

interface KnownVariant {
  blobId: string;
  size: number;
  mimeType: string;
  touchedAt: number;
}

/** Reads a stream into memory, refusing past `max` bytes. */
async function readAll(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw tooManyBytes(max);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

const tooManyBytes = (max: number) =>
  new AppError('IMAGE_TOO_LARGE', `The image is larger than ${max} bytes; larger ones are not transformed.`, {
    nextActions: 'Download it without transformation parameters, or raise STORAGE_IMAGE_MAX_SOURCE_BYTES.',
  });

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  !!ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');

export function createImageService(
  deps: Pick<Deps, 'sql' | 'blobStore' | 'config' | 'clock'>,
  onStoreError: (err: unknown) => void = () => {},
) {
  const { sql, blobStore } = deps;
  const cfg = deps.config.storage.images;
  const storage = createStorageService(deps, createStorageConfig(deps));
  const queue = createWorkQueue(cfg.concurrency, cfg.queue);
  const inflight = new Map<string, Promise<Made>>();
  const counts = { hits: 0, misses: 0, evictions: 0 };
  // Insertion order is use order: a hit moves its entry to the end, the oldest goes first.
  const known = new Map<string, KnownVariant>();
  const remember = (key: string, v: KnownVariant) => {
    known.delete(key);
    known.set(key, v);
    if (known.size > REMEMBERED) known.delete(known.keys().next().value!);
  };

  /** Where the variant `params` of `sourceBlobId` is: remembered, else from its row; undefined when not cached. */
  async function locate(sourceBlobId: string, params: string): Promise<KnownVariant | undefined> {
    const key = `${sourceBlobId}\n${params}`;
    const remembered = known.get(key);
    const now = deps.clock.now().getTime();
    if (remembered) {
      remember(key, remembered);
      if (now - remembered.touchedAt > TOUCH_EVERY_MS) {
        remembered.touchedAt = now;
        await variants.touchVariant(sql, remembered.blobId);
      }
      return remembered;
    }
    const row = await variants.findVariant(sql, sourceBlobId, params);
    if (!row) return undefined;
    const found = { blobId: row.blob_id, size: Number(row.size), mimeType: row.mime_type, touchedAt: now };
    remember(key, found);
    return found;
  }
  const limits = {
    maxSourcePixels: cfg.maxSourcePixels,
    maxDimension: cfg.maxDimension,
    timeoutSeconds: cfg.timeoutSeconds,
  };

  /** Keeps `made` as the variant `params` of `sourceBlobId`, then trims the cache to its bound. */
  async function store(sourceBlobId: string, params: string, made: Made): Promise<void> {
    const id = randomUUID();
    try {
      await storage.withPendingBlob(id, async () => {
        await blobStore.stage(id, Readable.from([made.data]), made.data.length);
        await withTx(sql, async (tx) => {
          const fresh = await variants.insertVariant(tx, {
            sourceBlobId,
            params,
            blobId: id,
            size: made.data.length,
            mimeType: made.mimeType,
          });
          if (!fresh) throw new AlreadyStored();
          await claimBlob(tx, id);
          await blobStore.promote(id);
        });
      });
      remember(`${sourceBlobId}\n${params}`, {
        blobId: id,
        size: made.data.length,
        mimeType: made.mimeType,
        touchedAt: deps.clock.now().getTime(),
      });
    } catch (err) {
      // Stored by another request first, or the source was replaced or deleted meanwhile (the
      // foreign key refuses a variant of a blob no object holds): nothing to keep.
      if (err instanceof AlreadyStored || (err as { code?: string }).code === '23503') return;
      throw err;
    }
    const evicted = await variants.evictBeyond(sql, cfg.cacheMaxBytes);
    if (evicted > 0) {
      counts.evictions += evicted;
      await storage.sweepOrphans();
    }
  }

  /** Transforms the row's bytes in the queue and stores the variant; one run per variant at a time. */
  function produce(row: ObjectRow, resolved: ResolvedTransform, params: string): Promise<Made> {
    const flight = `${row.blob_id}\n${params}`;
    const running = inflight.get(flight);
    if (running) return running;
    const job = (async () => {
      if (Number(row.size) > cfg.maxSourceBytes) throw tooManyBytes(cfg.maxSourceBytes);
      const made = await queue.run(async () => {
        const body = await blobStore.read(row.blob_id);
        if (!body) throw new AppError('OBJECT_NOT_FOUND', 'Object not found.');
        return transformImage(await readAll(body, cfg.maxSourceBytes), resolved, limits);
      });
      if (cfg.cacheMaxBytes > 0 && made.data.length <= cfg.cacheMaxBytes) {
        await store(row.blob_id, params, made).catch(onStoreError);
      }
      return made;
    })().finally(() => inflight.delete(flight));
    inflight.set(flight, job);
    return job;
  }

  return {
    counts: (): ImageCounts => ({ ...counts, ...queue.stats() }),

    /** Answers the transformed image `req` asks for, or the error its access check or limits give. */
    async serve(request: FastifyRequest, reply: FastifyReply, req: ImageRequest): Promise<FastifyReply> {
      const resolved = resolveTransform(req.transform, {
        defaultFormat: req.defaultFormat,
        maxDimension: cfg.maxDimension,
        accept: request.headers.accept,
      });
      const params = variantParams(resolved);
      const { row, shared } = await req.find();

      const etag = `"${createHash('sha256').update(`${row.blob_id}\n${params}`).digest('base64url').slice(0, 32)}"`;
      const maxAge = req.pinned ? `${YEAR}, immutable` : String(cfg.cacheMaxAgeSeconds);
      reply.header('etag', etag);
      reply.header('cache-control', `${shared ? 'public' : 'private'}, max-age=${maxAge}`);
      reply.header('last-modified', row.updated_at.toUTCString());
      reply.header('x-content-type-options', 'nosniff');
      if (resolved.variesByAccept) {
        const vary = reply.getHeader('vary');
        reply.header('vary', vary ? `${vary}, Accept` : 'Accept');
      }
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();

      const hit = cfg.cacheMaxBytes > 0 ? await locate(row.blob_id, params) : undefined;
      if (hit) {
        const body = request.method === 'HEAD' ? null : await blobStore.read(hit.blobId);
        if (body || request.method === 'HEAD') {
          counts.hits++;
          reply.header('content-type', hit.mimeType).header('content-length', hit.size);
          return reply.send(body ?? undefined);
        }
        // Its bytes are gone (evicted, or its source replaced, meanwhile): forget it, make it again.
        known.delete(`${row.blob_id}\n${params}`);
        await variants.deleteVariant(sql, hit.blobId);
      }
      counts.misses++;
      const made = await produce(row, resolved, params);
      reply.header('content-type', made.mimeType).header('content-length', made.data.length);
      return reply.send(made.data);
    },

    /** How many variants the cache holds, and their bytes. */
    totals: () => variants.variantTotals(sql),
  };
}

export type ImageService = ReturnType<typeof createImageService>;
