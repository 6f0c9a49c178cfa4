// Object tags as S3 has them: at most 10, keys of 1–128 and values of up to 256 characters; set
// by PutObjectTagging or, when an object is written, by the x-amz-tagging header (a query string).
import type { ObjectTag } from '../storage.service.js';
import { S3Error } from './s3-error.js';

export function assertTags(tags: ObjectTag[]): ObjectTag[] {
  const keys = new Set(tags.map((t) => t.Key));
  if (
    tags.length > 10 ||
    keys.size !== tags.length ||
    tags.some((t) => t.Key.length === 0 || t.Key.length > 128 || t.Value.length > 256)
  ) {
    throw new S3Error(
      'InvalidArgument',
      'An object may have up to 10 tags with distinct keys of 1 to 128 and values of up to 256 characters.',
    );
  }
  // A NUL (which stored JSON cannot hold) or a lone surrogate is no tag text.
  if (tags.some((t) => /[\0\p{Cs}]/u.test(t.Key + t.Value))) {
    throw new S3Error('InvalidArgument', 'Tag keys and values must be valid text without NUL characters.');
  }
  return tags;
}

/** The tags of `x-amz-tagging: k1=v1&k2=v2`; none without the header. */
export function tagsOfHeader(header: string | string[] | undefined): ObjectTag[] {
  if (typeof header !== 'string' || header === '') return [];
  return assertTags([...new URLSearchParams(header)].map(([Key, Value]) => ({ Key, Value })));
}
