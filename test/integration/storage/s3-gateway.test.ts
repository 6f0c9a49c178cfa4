// The /storage/v1/s3 gateway driven by the real AWS SDK (client-s3, the presigner and lib-storage's
// multipart Upload), over the S3 backend on a loopback S3 server: every listed operation, objects
// visible through REST and back, and each way a signature can be wrong.
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  DeleteObjectTaggingCommand,
  GetBucketCorsCommand,
  GetBucketAclCommand,
  GetBucketLocationCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsChunked, s3ErrorOf as s3Error, startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let peer: S3Peer;
let endpoint: string;
let s3: S3Client;
let key: { accessKeyId: string; secretAccessKey: string };
const admin = () => ({ 'x-api-key': t.apiKey });

const client = (
  overrides: {
    region?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    requestChecksumCalculation?: 'WHEN_REQUIRED';
  } = {},
) =>
  new S3Client({
    endpoint,
    region: overrides.region ?? 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: overrides.requestChecksumCalculation,
    credentials: {
      accessKeyId: overrides.accessKeyId ?? key.accessKeyId,
      secretAccessKey: overrides.secretAccessKey ?? key.secretAccessKey,
    },
  });

/**
 * Runs `work` with the server's clock `offsetMs` away from the real time the SDK signs with
 * (the manual clock otherwise stands at the moment the app started).
 */
async function withServerTime(offsetMs: number, work: () => Promise<void>) {
  const shift = Date.now() + offsetMs - t.clock.now().getTime();
  t.clock.advance(shift);
  try {
    await work();
  } finally {
    t.clock.advance(-shift);
  }
}

beforeAll(async () => {
  peer = await startS3Peer();
  t = await startTestApp({ env: peer.env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/storage/v1/s3`;
  const created = await t.request({
    method: 'POST',
    url: '/api/storage/s3/access-keys',
    headers: admin(),
    payload: { description: 'sdk' },
  });
  key = created.json;
  s3 = client();
});
afterAll(async () => {
  s3?.destroy();
  await t.close();
  await peer.close();
});

describe('buckets', () => {
  it('creates, heads, lists, locates and deletes buckets', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-bucket' }));
    expect(await s3Error(s3.send(new CreateBucketCommand({ Bucket: 'sdk-bucket' })))).toEqual({
      name: 'BucketAlreadyOwnedByYou',
      status: 409,
    });
    await s3.send(new HeadBucketCommand({ Bucket: 'sdk-bucket' }));
    expect((await s3Error(s3.send(new HeadBucketCommand({ Bucket: 'nope' })))).status).toBe(404);
    const list = await s3.send(new ListBucketsCommand({}));
    expect(list.Buckets?.map((b) => b.Name)).toContain('sdk-bucket');
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: 'sdk-bucket' }));
    expect(location.LocationConstraint).toBe('us-east-1');
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-bucket', Key: 'x', Body: 'x' }));
    expect(await s3Error(s3.send(new DeleteBucketCommand({ Bucket: 'sdk-bucket' })))).toEqual({
      name: 'BucketNotEmpty',
      status: 409,
    });
    await s3.send(new DeleteObjectCommand({ Bucket: 'sdk-bucket', Key: 'x' }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'sdk-bucket' }));
    expect(await s3Error(s3.send(new HeadBucketCommand({ Bucket: 'sdk-bucket' })))).toMatchObject({ status: 404 });
    expect(await s3Error(s3.send(new CreateBucketCommand({ Bucket: 'bad name!' })))).toMatchObject({ status: 400 });
  });

  it('versioning reads as never enabled and cannot be enabled', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'versioned' }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'versioned' }))).Status).toBeUndefined();
    await s3.send(
      new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Suspended' } }),
    );
    expect(
      await s3Error(
        s3.send(
          new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }),
        ),
      ),
    ).toEqual({ name: 'NotImplemented', status: 501 });
  });

  it('stores, reads and deletes a CORS configuration', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'cors' }));
    expect(await s3Error(s3.send(new GetBucketCorsCommand({ Bucket: 'cors' })))).toEqual({
      name: 'NoSuchCORSConfiguration',
      status: 404,
    });
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: 'cors',
        CORSConfiguration: {
          CORSRules: [
            { AllowedMethods: ['GET', 'PUT'], AllowedOrigins: ['https://app.example.com'], MaxAgeSeconds: 300 },
          ],
        },
      }),
    );
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: 'cors' }));
    expect(cors.CORSRules).toEqual([
      { AllowedMethods: ['GET', 'PUT'], AllowedOrigins: ['https://app.example.com'], MaxAgeSeconds: 300 },
    ]);
    await s3.send(new DeleteBucketCorsCommand({ Bucket: 'cors' }));
    expect((await s3Error(s3.send(new GetBucketCorsCommand({ Bucket: 'cors' })))).status).toBe(404);
  });
});

describe('objects', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'data' }));
  });

  it('puts, gets (whole and by range), heads and deletes an object', async () => {
    const put = await s3.send(
      new PutObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt', Body: 'hello, gateway', ContentType: 'text/plain' }),
    );
    expect(put.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    const get = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt' }));
    expect(await get.Body!.transformToString()).toBe('hello, gateway');
    expect(get.ContentType).toBe('text/plain');
    expect(get.ETag).toBe(put.ETag);
    const range = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt', Range: 'bytes=7-13' }));
    expect(await range.Body!.transformToString()).toBe('gateway');
    expect(range.ContentRange).toBe('bytes 7-13/14');
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt' }));
    expect(head.ContentLength).toBe(14);
    await s3.send(new DeleteObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt' }));
    expect(await s3Error(s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'dir/hello.txt' })))).toEqual({
      name: 'NoSuchKey',
      status: 404,
    });
    expect(await s3Error(s3.send(new GetObjectCommand({ Bucket: 'nope', Key: 'a' })))).toEqual({
      name: 'NoSuchBucket',
      status: 404,
    });
  });

  it('streams a body (aws-chunked with a trailing checksum, as the SDK sends streams)', async () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'data',
        Key: 'stream.bin',
        Body: Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]),
        ContentLength: bytes.length,
      }),
    );
    const back = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'stream.bin' }));
    expect(Buffer.from(await back.Body!.transformToByteArray()).equals(bytes)).toBe(true);
  });

  it('objects written through S3 are visible through REST, and back', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'from-s3.txt', Body: 'via s3' }));
    const rest = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/data/objects/from-s3.txt',
      headers: admin(),
    });
    expect(rest.body).toBe('via s3');
    const [row] = await t.deps.sql<
      { uploaded_via: string }[]
    >`select uploaded_via from storage.objects where key = 'from-s3.txt'`;
    expect(row?.uploaded_via).toBe('s3');
    await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/data/objects/from-rest.txt',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'via rest',
    });
    const get = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'from-rest.txt' }));
    expect(await get.Body!.transformToString()).toBe('via rest');
  });

  it('copies an object', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: 'data', Key: 'original.txt', Body: 'copy me', ContentType: 'text/markdown' }),
    );
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'data', Key: 'copies/copy.txt', CopySource: 'data/original.txt' }),
    );
    expect(copy.CopyObjectResult?.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    const get = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'copies/copy.txt' }));
    expect(await get.Body!.transformToString()).toBe('copy me');
    expect(get.ContentType).toBe('text/markdown');
    expect(
      await s3Error(s3.send(new CopyObjectCommand({ Bucket: 'data', Key: 'c', CopySource: 'data/missing' }))),
    ).toMatchObject({ name: 'NoSuchKey' });
  });

  it('lists with prefix, delimiter and continuation tokens', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'listing' }));
    for (const k of ['a/1.txt', 'a/2.txt', 'a/b/3.txt', 'c.txt', 'd/4.txt'])
      await s3.send(new PutObjectCommand({ Bucket: 'listing', Key: k, Body: k }));
    const root = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Delimiter: '/' }));
    expect(root.Contents?.map((o) => o.Key)).toEqual(['c.txt']);
    expect(root.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'd/']);
    const a = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Prefix: 'a/', Delimiter: '/' }));
    expect(a.Contents?.map((o) => o.Key)).toEqual(['a/1.txt', 'a/2.txt']);
    expect(a.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/b/']);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', MaxKeys: 2, ContinuationToken: token }));
      expect(page.KeyCount).toBeLessThanOrEqual(2);
      keys.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    expect(keys).toEqual(['a/1.txt', 'a/2.txt', 'a/b/3.txt', 'c.txt', 'd/4.txt']);
  });

  it('deletes several objects at once', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'del/1', Body: '1' }));
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'del/2', Body: '2' }));
    const res = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'data',
        Delete: { Objects: [{ Key: 'del/1' }, { Key: 'del/2' }, { Key: 'del/none' }] },
      }),
    );
    expect(res.Deleted?.map((d) => d.Key).sort()).toEqual(['del/1', 'del/2', 'del/none']);
    const list = await s3.send(new ListObjectsV2Command({ Bucket: 'data', Prefix: 'del/' }));
    expect(list.KeyCount).toBe(0);
  });

  it('tags objects', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'tagged', Body: 't' }));
    await s3.send(
      new PutObjectTaggingCommand({
        Bucket: 'data',
        Key: 'tagged',
        Tagging: { TagSet: [{ Key: 'team', Value: 'storage' }] },
      }),
    );
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: 'data', Key: 'tagged' }))).TagSet).toEqual([
      { Key: 'team', Value: 'storage' },
    ]);
    await s3.send(new DeleteObjectTaggingCommand({ Bucket: 'data', Key: 'tagged' }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: 'data', Key: 'tagged' }))).TagSet ?? []).toEqual([]);
  });

  it('rejects hostile keys', async () => {
    expect(
      (await s3Error(s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'a/../../etc/passwd', Body: 'x' })))).status,
    ).toBe(400);
  });
});

describe('multipart uploads', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'big' }));
  });

  it('lib-storage Upload sends 11 MiB in parts and the object reads back whole', async () => {
    const body = Buffer.from(Array.from({ length: 11 * 1024 * 1024 }, (_, i) => (i * 31) % 256));
    const upload = new Upload({
      client: s3,
      params: { Bucket: 'big', Key: 'eleven.bin', Body: Readable.from([body]) },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    });
    await upload.done();
    const get = await s3.send(new GetObjectCommand({ Bucket: 'big', Key: 'eleven.bin' }));
    expect(Buffer.from(await get.Body!.transformToByteArray()).equals(body)).toBe(true);
    expect(await t.deps.sql`select * from storage.s3_multipart_uploads`).toHaveLength(0);
    // Only live objects' blobs remain in the backend bucket.
    const blobs = (await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.objects`)
      .map((r) => `blobs/${r.blob_id}`)
      .sort();
    expect((await peer.keys()).sort()).toEqual(blobs);
  });

  it('lists parts, refuses small middle parts, and aborts', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'parts.bin' }));
    const one = await s3.send(
      new UploadPartCommand({ Bucket: 'big', Key: 'parts.bin', UploadId, PartNumber: 1, Body: 'small' }),
    );
    const two = await s3.send(
      new UploadPartCommand({ Bucket: 'big', Key: 'parts.bin', UploadId, PartNumber: 2, Body: 'last' }),
    );
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'big', Key: 'parts.bin', UploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size, p.ETag])).toEqual([
      [1, 5, one.ETag],
      [2, 4, two.ETag],
    ]);
    expect(
      await s3Error(
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: 'big',
            Key: 'parts.bin',
            UploadId,
            MultipartUpload: {
              Parts: [
                { PartNumber: 1, ETag: one.ETag },
                { PartNumber: 2, ETag: two.ETag },
              ],
            },
          }),
        ),
      ),
    ).toEqual({ name: 'EntityTooSmall', status: 400 });
    expect(
      await s3Error(
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: 'big',
            Key: 'parts.bin',
            UploadId,
            MultipartUpload: { Parts: [{ PartNumber: 2, ETag: one.ETag }] },
          }),
        ),
      ),
    ).toEqual({ name: 'InvalidPart', status: 400 });
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'big', Key: 'parts.bin', UploadId }));
    expect(await s3Error(s3.send(new ListPartsCommand({ Bucket: 'big', Key: 'parts.bin', UploadId })))).toEqual({
      name: 'NoSuchUpload',
      status: 404,
    });
    expect(await t.deps.sql`select * from storage.s3_multipart_parts`).toHaveLength(0);
  });

  it('uploads left open for a week are removed on a later start, with their parts', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'forgotten.bin' }));
    await s3.send(
      new UploadPartCommand({ Bucket: 'big', Key: 'forgotten.bin', UploadId, PartNumber: 1, Body: 'part' }),
    );
    const [part] = await t.deps.sql<
      { blob_id: string }[]
    >`select blob_id from storage.s3_multipart_parts where upload_id = ${UploadId!}`;
    await t.deps
      .sql`update storage.s3_multipart_uploads set created_at = now() - interval '8 days' where upload_id = ${UploadId!}`;
    const other = await t.startAnotherServer();
    await other.close();
    expect(
      await s3Error(s3.send(new ListPartsCommand({ Bucket: 'big', Key: 'forgotten.bin', UploadId }))),
    ).toMatchObject({ name: 'NoSuchUpload' });
    expect(await peer.keys()).not.toContain(`blobs/${part!.blob_id}`);
  });
});

describe('presigned URLs', () => {
  it('a presigned PUT and GET work without any other credential', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'signed' }));
    // As with S3: by default the SDK signs the CRC32 of the (absent) body into a PUT URL, which no
    // other body matches; presigned uploads sign checksums only when required.
    const presigner = client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const putUrl = await getSignedUrl(presigner, new PutObjectCommand({ Bucket: 'signed', Key: 'up.txt' }), {
      expiresIn: 300,
    });
    presigner.destroy();
    const put = await fetch(putUrl, { method: 'PUT', body: 'presigned body' });
    expect(put.status, await put.clone().text()).toBe(200);
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'signed', Key: 'up.txt' }), {
      expiresIn: 300,
    });
    const get = await fetch(getUrl);
    expect(await get.text()).toBe('presigned body');
    const tampered = await fetch(getUrl.replace('up.txt', 'other.txt'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('an HTML object uploaded by a presigned PUT is served sandboxed, as an attachment, never sniffed', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'avatars' }));
    const presigner = client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const putUrl = await getSignedUrl(
      presigner,
      new PutObjectCommand({ Bucket: 'avatars', Key: 'me/avatar.html', ContentType: 'text/html' }),
      { expiresIn: 300 },
    );
    presigner.destroy();
    const html = '<script>parent.stolen = localStorage.length</script>';
    const put = await fetch(putUrl, { method: 'PUT', body: html, headers: { 'content-type': 'text/html' } });
    expect(put.status, await put.clone().text()).toBe(200);
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'avatars', Key: 'me/avatar.html' }), {
      expiresIn: 300,
    });
    const res = await fetch(getUrl);
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox\b/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''avatar.html");
    expect(await res.text()).toBe(html);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'avatars', Key: 'me/avatar.html' }));
    expect(head.ContentDisposition).toBe("attachment; filename*=UTF-8''avatar.html");
    const got = await s3.send(new GetObjectCommand({ Bucket: 'avatars', Key: 'me/avatar.html' }));
    expect(got.ContentType).toBe('text/html');
    expect(got.ContentDisposition).toBe("attachment; filename*=UTF-8''avatar.html");
    await got.Body?.transformToString();
    // A passive type is shown inline, but never sniffed into something else.
    await s3.send(new PutObjectCommand({ Bucket: 'avatars', Key: 'plain.txt', Body: html, ContentType: 'text/plain' }));
    const plainUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'avatars', Key: 'plain.txt' }));
    const plain = await fetch(plainUrl);
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(plain.headers.get('content-disposition')).toBeNull();
  });

  it('an expired presigned URL is refused', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'signed', Key: 'up.txt' }), { expiresIn: 60 });
    await withServerTime(59_000, async () => expect((await fetch(url)).status).toBe(200));
    await withServerTime(61_000, async () => {
      const res = await fetch(url);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('<Code>AccessDenied</Code>');
    });
  });
});

describe('signatures', () => {
  it('a wrong secret → SignatureDoesNotMatch', async () => {
    const bad = client({ secretAccessKey: 'x'.repeat(40) });
    expect(await s3Error(bad.send(new ListBucketsCommand({})))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
  });

  it('an unknown access key → InvalidAccessKeyId', async () => {
    const bad = client({ accessKeyId: 'PLNTAAAAAAAAAAAAAAAA' });
    expect(await s3Error(bad.send(new ListBucketsCommand({})))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('a revoked access key → InvalidAccessKeyId', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/storage/s3/access-keys',
      headers: admin(),
      payload: {},
    });
    await t.request({ method: 'DELETE', url: `/api/storage/s3/access-keys/${created.json.id}`, headers: admin() });
    const revoked = client({ accessKeyId: created.json.accessKeyId, secretAccessKey: created.json.secretAccessKey });
    expect(await s3Error(revoked.send(new ListBucketsCommand({})))).toMatchObject({ name: 'InvalidAccessKeyId' });
  });

  it('a wrong region → AuthorizationHeaderMalformed', async () => {
    expect(await s3Error(client({ region: 'eu-west-1' }).send(new ListBucketsCommand({})))).toEqual({
      name: 'AuthorizationHeaderMalformed',
      status: 400,
    });
  });

  it('a clock skewed by more than 15 minutes → RequestTimeTooSkewed', async () => {
    // The SDK corrects its own clock after a skew error; fresh clients sign with the real time.
    for (const offset of [16 * 60_000, -16 * 60_000]) {
      await withServerTime(offset, async () => {
        expect(await s3Error(client().send(new ListBucketsCommand({})))).toMatchObject({
          name: 'RequestTimeTooSkewed',
          status: 403,
        });
      });
    }
    await withServerTime(14 * 60_000, async () => {
      await client().send(new ListBucketsCommand({}));
    });
  });

  it('unsigned requests and API keys are refused with XML errors', async () => {
    const unsigned = await fetch(`${endpoint}/data/x`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toMatch(
      /<Error><Code>AccessDenied<\/Code><Message>.+<\/Message><Resource>\/storage\/v1\/s3\/data\/x<\/Resource><RequestId>.+<\/RequestId><\/Error>/,
    );
    const apiKey = await fetch(`${endpoint}/`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(apiKey.status).toBe(400);
  });

  it('a presigned URL signs its method', async () => {
    const res = await fetch(
      await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'data', Key: 'unsafe' }), { expiresIn: 60 }),
    );
    expect(res.status).toBe(403);
  });

  it('a body that does not match its signed SHA-256 is refused and not stored', async () => {
    const tampering = client();
    const modes: string[] = [];
    tampering.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        modes.push(args.request.headers['x-amz-content-sha256']);
        args.request.body = Buffer.from('abd'); // same length, other bytes, after signing
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamper' },
    );
    expect(
      await s3Error(
        tampering.send(new PutObjectCommand({ Bucket: 'data', Key: 'tampered', Body: Buffer.from('abc') })),
      ),
    ).toEqual({ name: 'XAmzContentSHA256Mismatch', status: 400 });
    expect(modes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await s3Error(s3.send(new HeadObjectCommand({ Bucket: 'data', Key: 'tampered' })))).toMatchObject({
      status: 404,
    });
  });

  it('STREAMING-AWS4-HMAC-SHA256-PAYLOAD: signed chunks are checked one by one', async () => {
    const content = Buffer.from(Array.from({ length: 150_000 }, (_, i) => i % 256));
    const send = (corrupt: boolean) => {
      const chunkedClient = client();
      chunkedClient.middlewareStack.addRelativeTo(
        (next: any) => async (args: any) => {
          args.request.headers['x-amz-content-sha256'] = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
          args.request.headers['x-amz-decoded-content-length'] = String(content.length);
          args.request.headers['content-encoding'] = 'aws-chunked';
          // The framed length is known before signing: the signatures are fixed-width.
          args.request.headers['content-length'] = String(
            awsChunked(content, '0'.repeat(64), '20260101T000000Z', 'x', false).length,
          );
          return next(args);
        },
        { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'streaming-mode' },
      );
      chunkedClient.middlewareStack.addRelativeTo(
        (next: any) => async (args: any) => {
          const headers = args.request.headers as Record<string, string>;
          const seed = /Signature=([0-9a-f]{64})/.exec(headers.authorization!)![1]!;
          const body = awsChunked(content, seed, headers['x-amz-date']!, key.secretAccessKey, corrupt);
          args.request.body = body;
          return next(args);
        },
        { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'chunk-signer' },
      );
      return chunkedClient.send(new PutObjectCommand({ Bucket: 'data', Key: 'chunked.bin', Body: content }));
    };
    await send(false);
    const back = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'chunked.bin' }));
    expect(Buffer.from(await back.Body!.transformToByteArray()).equals(content)).toBe(true);
    await s3.send(new DeleteObjectCommand({ Bucket: 'data', Key: 'chunked.bin' }));
    expect(await s3Error(send(true))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await s3Error(s3.send(new HeadObjectCommand({ Bucket: 'data', Key: 'chunked.bin' })))).toMatchObject({
      status: 404,
    });
  });

  it('unsupported sub-resources → MethodNotAllowed', async () => {
    expect(await s3Error(s3.send(new GetBucketAclCommand({ Bucket: 'data' })))).toEqual({
      name: 'MethodNotAllowed',
      status: 405,
    });
  });
});
