// The `token` of Supabase's signed URLs, over Plinth's URL signer (HMAC, expiry in the token):
// a download token opens one object until it expires; an upload token lets one key be written,
// as the user who asked for it, for two hours. Each kind has its own key, so neither passes as
// the other nor as Plinth's own signed download links.
import { createHmac } from 'node:crypto';
import type { Clock } from '../../../core/clock.js';
import { createUrlSigner } from '../../storage/index.js';

export const UPLOAD_URL_SECONDS = 7200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const derive = (key: Buffer, purpose: string) => createHmac('sha256', key).update(purpose).digest();

export interface UploadGrant {
  /** The user who asked for the URL (the row's owner); null for anon or the service key. */
  owner: string | null;
  upsert: boolean;
}

export function createSupabaseTokens(storageUrlKey: Buffer, clock: Clock) {
  const downloads = createUrlSigner(derive(storageUrlKey, 'supabase signed download'), clock);
  const uploads = createUrlSigner(derive(storageUrlKey, 'supabase signed upload'), clock);
  const grantText = (g: UploadGrant, key: string) => `${g.owner ?? '-'}:${g.upsert ? 1 : 0}:${key}`;

  return {
    download(bucket: string, key: string, expiresIn: number): string {
      const { expires, token } = downloads.sign(bucket, key, expiresIn);
      return `${expires}.${token}`;
    },
    /** Whether `token` opens (bucket, key) now. */
    opens(bucket: string, key: string, token: string): boolean {
      const [expires, mac, ...rest] = token.split('.');
      return rest.length === 0 && downloads.verify(bucket, key, Number(expires), mac ?? '');
    },
    upload(bucket: string, key: string, grant: UploadGrant): string {
      const { expires, token } = uploads.sign(bucket, grantText(grant, key), UPLOAD_URL_SECONDS);
      return `${expires}.${grant.owner ?? '-'}.${grant.upsert ? 1 : 0}.${token}`;
    },
    /** The grant of a valid upload token for (bucket, key); null otherwise. */
    uploadGrant(bucket: string, key: string, token: string): UploadGrant | null {
      const [expires, owner, upsert, mac, ...rest] = token.split('.');
      if (rest.length > 0 || (owner !== '-' && !UUID.test(owner ?? '')) || (upsert !== '0' && upsert !== '1')) {
        return null;
      }
      const grant = { owner: owner === '-' ? null : owner!, upsert: upsert === '1' };
      return uploads.verify(bucket, grantText(grant, key), Number(expires), mac ?? '') ? grant : null;
    },
  };
}

export type SupabaseTokens = ReturnType<typeof createSupabaseTokens>;
