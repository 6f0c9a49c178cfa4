// Downloads: which row a GET may read (public bucket, credential, or a valid signed URL), and how
// to download an object: its plain URL in a public bucket, else a signed, expiring one.
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { canonicalTransform, signedSubject, type Transform } from './image-params.js';
import { MAX_EXPIRES_IN, type UrlSigner } from './signed-urls.js';
import { type ObjectRow, SERVICE_PRINCIPAL, type StorageService } from './storage.service.js';

export interface DownloadTarget {
  bucket: string;
  key: string;
}

export function createDownloads(storage: StorageService, signer: UrlSigner) {
  return {
    /**
     * The row a download reads, and who reads it: a signed URL (`expires`, `token`) must be
     * valid, and then reads the one object it names whatever the bucket. A signed URL's
     * signature covers its image transformation (none, or the one it was made with): any other
     * transformation asked with it is refused.
     */
    async find(
      target: DownloadTarget,
      signed: { expires?: number; token?: string },
      caller: Principal | null,
      transform: Transform | null = null,
    ): Promise<{ row: ObjectRow; principal: Principal | null }> {
      const { bucket, key } = target;
      let principal = caller;
      if (signed.token !== undefined || signed.expires !== undefined) {
        if (!signer.verify(bucket, signedSubject(key, transform), signed.expires ?? 0, signed.token ?? '')) {
          throw new AppError('UNAUTHORIZED', 'The signed URL is invalid or has expired.', {
            nextActions: 'Ask for a new URL with GET …/download-strategy/objects/{key}.',
          });
        }
        principal = SERVICE_PRINCIPAL;
      }
      return { row: await storage.head(bucket, key, principal), principal };
    },

    /** `transform`: the image transformation the URL carries (and, when signed, its signature covers). */
    async strategy(
      target: DownloadTarget & { expiresIn?: number; transform?: Transform | null },
      principal: Principal | null,
    ) {
      const { bucket, key } = target;
      const transform = target.transform ?? null;
      const found = await storage.head(bucket, key, principal);
      const query = transform ? `?${canonicalTransform(transform)}` : '';
      const url = `${storage.toFile(found).url}${query}`;
      if ((await storage.bucketOf(bucket)).public) return { method: 'direct' as const, url };
      const expiresIn = Math.min(Math.max(target.expiresIn ?? 3600, 1), MAX_EXPIRES_IN);
      const { expires, token } = signer.sign(bucket, signedSubject(key, transform), expiresIn);
      return {
        method: 'presigned' as const,
        url: `${url}${query ? '&' : '?'}expires=${expires}&token=${token}`,
        expiresAt: new Date(expires * 1000).toISOString(),
      };
    },
  };
}

export type Downloads = ReturnType<typeof createDownloads>;
