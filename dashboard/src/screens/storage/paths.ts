// Where the storage screen is: a bucket and a folder prefix live in the dashboard path
// (/storage/<bucket>/<folder>/<folder>), and the API paths of a bucket's objects.

export interface Place {
  bucket: string;
  /** "" at the bucket's root, else "folder/sub/" (always ending in a slash). */
  prefix: string;
}

/** The place of the path below /storage ("" is the list of buckets: null). */
export function placeOf(rest: string): Place | null {
  if (!rest) return null;
  const slash = rest.indexOf('/');
  if (slash < 0) return { bucket: rest, prefix: '' };
  const folder = rest.slice(slash + 1).replace(/\/+$/, '');
  return { bucket: rest.slice(0, slash), prefix: folder ? `${folder}/` : '' };
}

const encodeSegments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The dashboard path of a bucket's folder. */
export const browsePath = ({ bucket, prefix }: Place) =>
  `/storage/${encodeURIComponent(bucket)}${prefix ? `/${encodeSegments(prefix.replace(/\/$/, ''))}` : ''}`;

/** The API path of a bucket's objects, or of one object. */
export const objectsApi = (bucket: string, key?: string) =>
  `/api/storage/buckets/${encodeURIComponent(bucket)}/objects${key === undefined ? '' : `/${encodeSegments(key)}`}`;

/** The API path of an object's download strategy (a signed URL on private buckets). */
export const downloadStrategyApi = (bucket: string, key: string, expiresIn: number) =>
  `/api/storage/buckets/${encodeURIComponent(bucket)}/download-strategy/objects/${encodeSegments(key)}?expiresIn=${expiresIn}`;

/** Types the server transforms (docs/storage-images.md); others are shown or downloaded as they are. */
export const transformable = (mimeType: string) => /^image\/(jpeg|png|webp|gif|avif|tiff)$/.test(mimeType);

/**
 * The API path of an image scaled to fit in `size`×`size` (never enlarged), in the format the
 * browser prefers, pinned to the object's version so a replaced file is never shown stale.
 */
export const imageApi = (bucket: string, key: string, size: number, version: string) =>
  `${objectsApi(bucket, key)}?width=${size}&height=${size}&resize=contain&format=auto&v=${encodeURIComponent(version)}`;
