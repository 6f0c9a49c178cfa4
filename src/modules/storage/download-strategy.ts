// How to download an object: its plain URL in a public bucket, else a signed, expiring one.
import { MAX_EXPIRES_IN, type UrlSigner } from './signed-urls.js';
import type { Principal } from '../../http/principal.js';
import type { StorageService } from './storage.service.js';

export async function downloadStrategy(
  storage: StorageService,
  signer: UrlSigner,
  target: { bucket: string; key: string; expiresIn?: number },
  principal: Principal | null,
) {
  const { bucket, key } = target;
  const found = await storage.head(bucket, key, principal);
  const url = storage.toFile(found).url;
  if ((await storage.bucketOf(bucket)).public) return { method: 'direct', url };
  const expiresIn = Math.min(Math.max(target.expiresIn ?? 3600, 1), MAX_EXPIRES_IN);
  const { expires, token } = signer.sign(bucket, key, expiresIn);
  return { method: 'presigned', url: `${url}?expires=${expires}&token=${token}`, expiresAt: new Date(expires * 1000).toISOString() };
}
