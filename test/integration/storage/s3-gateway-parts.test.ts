// The S3 gateway's UploadPartCopy, ListMultipartUploads and object tags across writes, driven by
// the real AWS SDK over the S3 backend on a loopback S3 server.
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ErrorOf, startS3Gateway, type S3Gateway } from '../../harness/s3-peer.js';

let g: S3Gateway;
let s3: S3Client;
const MiB = 1024 * 1024;
const md5 = (b: Buffer) => `"${createHash('md5').update(b).digest('hex')}"`;
const tagsOf = async (Key: string) =>
  (await s3.send(new GetObjectTaggingCommand({ Bucket: 'parts', Key }))).TagSet ?? [];

beforeAll(async () => {
  g = await startS3Gateway();
  s3 = g.client();
  for (const bucketName of ['parts', 'pending']) {
    await g.t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: { 'x-api-key': g.t.apiKey },
      payload: { bucketName },
    });
  }
});
afterAll(() => g.close());

describe('UploadPartCopy', () => {
  it('copies whole objects and byte ranges into parts; the completed object is their concatenation', async () => {
    const source = Buffer.from(Array.from({ length: 6 * MiB }, (_, i) => (i * 7) % 256));
    await s3.send(new PutObjectCommand({ Bucket: 'parts', Key: 'source.bin', Body: source }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'parts', Key: 'assembled.bin' }));
    const one = await s3.send(
      new UploadPartCopyCommand({
        Bucket: 'parts',
        Key: 'assembled.bin',
        UploadId,
        PartNumber: 1,
        CopySource: 'parts/source.bin',
        CopySourceRange: `bytes=0-${5 * MiB - 1}`,
      }),
    );
    expect(one.CopyPartResult?.ETag).toBe(md5(source.subarray(0, 5 * MiB)));
    const two = await s3.send(
      new UploadPartCopyCommand({
        Bucket: 'parts',
        Key: 'assembled.bin',
        UploadId,
        PartNumber: 2,
        CopySource: '/parts/source.bin',
      }),
    );
    expect(two.CopyPartResult?.ETag).toBe(md5(source));
    const three = await s3.send(
      new UploadPartCommand({ Bucket: 'parts', Key: 'assembled.bin', UploadId, PartNumber: 3, Body: 'tail' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'parts',
        Key: 'assembled.bin',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: one.CopyPartResult!.ETag },
            { PartNumber: 2, ETag: two.CopyPartResult!.ETag },
            { PartNumber: 3, ETag: three.ETag },
          ],
        },
      }),
    );
    const back = Buffer.from(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'parts', Key: 'assembled.bin' }))
      ).Body!.transformToByteArray(),
    );
    expect(back.equals(Buffer.concat([source.subarray(0, 5 * MiB), source, Buffer.from('tail')]))).toBe(true);
  });

  it('refuses a range outside the source and a missing source', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'parts', Key: 'small.txt', Body: 'ten bytes!' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'parts', Key: 'bad.bin' }));
    const copy = (CopySource: string, CopySourceRange?: string) =>
      s3ErrorOf(
        s3.send(
          new UploadPartCopyCommand({
            Bucket: 'parts',
            Key: 'bad.bin',
            UploadId,
            PartNumber: 1,
            CopySource,
            CopySourceRange,
          }),
        ),
      );
    expect(await copy('parts/small.txt', 'bytes=5-10')).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await copy('parts/small.txt', 'bytes=6-5')).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await copy('parts/nothing.txt')).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(
      await s3ErrorOf(
        s3.send(
          new UploadPartCopyCommand({
            Bucket: 'parts',
            Key: 'bad.bin',
            UploadId: '00000000-0000-4000-8000-000000000000',
            PartNumber: 1,
            CopySource: 'parts/small.txt',
          }),
        ),
      ),
    ).toEqual({ name: 'NoSuchUpload', status: 404 });
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'parts', Key: 'bad.bin', UploadId }));
  });
});

describe('ListMultipartUploads', () => {
  it('lists uploads in progress by key, with prefix, delimiter and markers, and forgets completed and aborted ones', async () => {
    const started: [string, string][] = [];
    for (const Key of ['a/1', 'a/2', 'b', 'b', 'c/d/e']) {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'pending', Key }));
      started.push([Key, UploadId!]);
    }
    const all = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'pending' }));
    expect(all.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual(started);
    expect(all.IsTruncated).toBe(false);
    expect(all.Uploads?.[0]?.Initiated).toBeInstanceOf(Date);

    const a = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'pending', Prefix: 'a/' }));
    expect(a.Uploads?.map((u) => u.Key)).toEqual(['a/1', 'a/2']);
    const grouped = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'pending', Delimiter: '/' }));
    expect(grouped.Uploads?.map((u) => u.Key)).toEqual(['b', 'b']);
    expect(grouped.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'c/']);

    const paged: [string, string][] = [];
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    let pages = 0;
    for (;;) {
      const page = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'pending', MaxUploads: 2, ...markers }));
      pages++;
      paged.push(...(page.Uploads ?? []).map((u): [string, string] => [u.Key!, u.UploadId!]));
      if (!page.IsTruncated) break;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
    expect(paged).toEqual(started);
    expect(pages).toBe(3);

    for (const [Key, UploadId] of started)
      await s3.send(new AbortMultipartUploadCommand({ Bucket: 'pending', Key, UploadId }));
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: 'pending' }))).Uploads ?? []).toEqual([]);
    expect(await s3ErrorOf(s3.send(new ListMultipartUploadsCommand({ Bucket: 'nope' })))).toEqual({
      name: 'NoSuchBucket',
      status: 404,
    });
  });
});

describe('tags across writes', () => {
  it('PutObject sets the x-amz-tagging tags and a replacing PutObject resets them', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: 'parts', Key: 'tagged.txt', Body: 'v1', Tagging: 'team=storage&tier=hot' }),
    );
    expect(await tagsOf('tagged.txt')).toEqual([
      { Key: 'team', Value: 'storage' },
      { Key: 'tier', Value: 'hot' },
    ]);
    await s3.send(new PutObjectCommand({ Bucket: 'parts', Key: 'tagged.txt', Body: 'v2' }));
    expect(await tagsOf('tagged.txt')).toEqual([]);
    await s3.send(
      new PutObjectTaggingCommand({
        Bucket: 'parts',
        Key: 'tagged.txt',
        Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] },
      }),
    );
    await g.t.request({
      method: 'PUT',
      url: '/api/storage/buckets/parts/objects/tagged.txt',
      headers: { 'x-api-key': g.t.apiKey, 'content-type': 'text/plain' },
      payload: 'v3',
    });
    expect(await tagsOf('tagged.txt')).toEqual([]);
    expect(
      await s3ErrorOf(
        s3.send(
          new PutObjectCommand({
            Bucket: 'parts',
            Key: 'many-tags',
            Body: 'x',
            Tagging: Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&'),
          }),
        ),
      ),
    ).toEqual({ name: 'InvalidArgument', status: 400 });
  });

  it("CopyObject copies the source's tags, or takes new ones with the REPLACE directive", async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'parts', Key: 'src.txt', Body: 's', Tagging: 'origin=source' }));
    await s3.send(new CopyObjectCommand({ Bucket: 'parts', Key: 'copy-1.txt', CopySource: 'parts/src.txt' }));
    expect(await tagsOf('copy-1.txt')).toEqual([{ Key: 'origin', Value: 'source' }]);
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'parts',
        Key: 'copy-2.txt',
        CopySource: 'parts/src.txt',
        TaggingDirective: 'REPLACE',
        Tagging: 'origin=copy',
      }),
    );
    expect(await tagsOf('copy-2.txt')).toEqual([{ Key: 'origin', Value: 'copy' }]);
  });

  it("a multipart upload's object gets the tags given when it was created", async () => {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'parts', Key: 'multi-tagged', Tagging: 'via=multipart' }),
    );
    const part = await s3.send(
      new UploadPartCommand({ Bucket: 'parts', Key: 'multi-tagged', UploadId, PartNumber: 1, Body: 'only part' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'parts',
        Key: 'multi-tagged',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    expect(await tagsOf('multi-tagged')).toEqual([{ Key: 'via', Value: 'multipart' }]);
  });
});
