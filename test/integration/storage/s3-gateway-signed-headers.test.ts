// The S3 gateway acts only on what the signature covers, as AWS does: an x-amz-* header (or
// Content-MD5) the signature leaves out is refused with AccessDenied/HeadersNotSigned, the
// x-amz-* parameters a presigner hoists into the URL act as the headers they stand for, and the
// query the gateway acts on is the one the signature was checked against.
import { createHash } from 'node:crypto';
import {
  CopyObjectCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ErrorOf, startS3Gateway, type S3Gateway } from '../../harness/s3-peer.js';

let g: S3Gateway;
let s3: S3Client;
/** A presigner that signs no checksum of the (absent) body into PUT URLs: AWS's documented setting for presigned uploads. */
let presigner: S3Client;
const admin = () => ({ 'x-api-key': g.t.apiKey });

const absent = async (bucket: string, key: string) =>
  (await s3ErrorOf(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })))).status === 404;
const read = async (bucket: string, key: string) =>
  (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString();
const tags = async (bucket: string, key: string) =>
  (await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key }))).TagSet ?? [];
const presignPut = (key: string, client = presigner) =>
  getSignedUrl(client, new PutObjectCommand({ Bucket: 'inbox', Key: key }), { expiresIn: 300 });

/** The parts of an S3 XML error a client reads. */
async function xmlError(res: Response) {
  const text = await res.text();
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  return {
    status: res.status,
    code: field('Code'),
    message: field('Message'),
    headersNotSigned: field('HeadersNotSigned'),
  };
}

/** An SDK client whose requests get `headers` added after they were signed. */
function addingAfterSigning(headers: Record<string, string>) {
  const c = g.client();
  c.middlewareStack.addRelativeTo(
    (next: any) => async (args: any) => {
      Object.assign(args.request.headers, headers);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'unsigned-extra' },
  );
  return c;
}

beforeAll(async () => {
  g = await startS3Gateway();
  s3 = g.client();
  presigner = new S3Client({
    endpoint: g.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: g.key,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  for (const bucketName of ['vault', 'inbox']) {
    await g.t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName, isPublic: false },
    });
  }
  await s3.send(
    new PutObjectCommand({ Bucket: 'vault', Key: 'secret.txt', Body: 'top secret', ContentType: 'text/plain' }),
  );
});
afterAll(async () => {
  presigner?.destroy();
  await g?.close();
});

describe('unsigned x-amz-* headers are refused', () => {
  it('a presigned PUT with an unsigned x-amz-copy-source: 403 HeadersNotSigned, the private object is not copied', async () => {
    const url = await presignPut('mine.txt');
    const res = await fetch(url, { method: 'PUT', headers: { 'x-amz-copy-source': '/vault/secret.txt' } });
    expect(await xmlError(res)).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'There were headers present in the request which were not signed',
      headersNotSigned: 'x-amz-copy-source',
    });
    expect(await absent('inbox', 'mine.txt')).toBe(true);
    // Nor over an object already in the slot: it keeps its content.
    await fetch(url, { method: 'PUT', body: 'my own words' });
    const again = await fetch(url, {
      method: 'PUT',
      headers: { 'x-amz-copy-source': 'vault/secret.txt', 'x-amz-metadata-directive': 'REPLACE' },
    });
    expect(await xmlError(again)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      headersNotSigned: 'x-amz-copy-source, x-amz-metadata-directive',
    });
    expect(await read('inbox', 'mine.txt')).toBe('my own words');
  });

  it('a presigned PUT with an unsigned x-amz-tagging: 403, nothing stored, no tags', async () => {
    const url = await presignPut('tagged.txt');
    const res = await fetch(url, { method: 'PUT', body: 'content', headers: { 'x-amz-tagging': 'owner=attacker' } });
    expect(await xmlError(res)).toMatchObject({ status: 403, code: 'AccessDenied', headersNotSigned: 'x-amz-tagging' });
    expect(await absent('inbox', 'tagged.txt')).toBe(true);
    // The same URL without the extra header is as good as it was.
    expect((await fetch(url, { method: 'PUT', body: 'content' })).status).toBe(200);
    expect(await tags('inbox', 'tagged.txt')).toEqual([]);
  });

  it('a header-signed request with an extra unsigned x-amz-meta-foo: 403 AccessDenied, nothing stored', async () => {
    const c = addingAfterSigning({ 'x-amz-meta-foo': 'bar' });
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'meta.txt', Body: 'm' })))).toEqual({
      name: 'AccessDenied',
      status: 403,
    });
    expect(await absent('inbox', 'meta.txt')).toBe(true);
    // Signed, the same header is fine.
    await s3.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'meta.txt', Body: 'm', Metadata: { foo: 'bar' } }));
  });

  it('headers outside x-amz-* may stay unsigned: x-amzn-trace-id, Content-Type, Range', async () => {
    await addingAfterSigning({ 'x-amzn-trace-id': 'Root=1-00000000-000000000000000000000000' }).send(
      new PutObjectCommand({ Bucket: 'inbox', Key: 'trace.txt', Body: 'traced' }),
    );
    const put = await fetch(await presignPut('typed.txt'), {
      method: 'PUT',
      body: 'typed body',
      headers: { 'content-type': 'text/plain' },
    });
    expect(put.status).toBe(200);
    const get = await fetch(
      await getSignedUrl(presigner, new GetObjectCommand({ Bucket: 'inbox', Key: 'typed.txt' }), { expiresIn: 300 }),
      { headers: { range: 'bytes=0-4' } },
    );
    expect([get.status, get.headers.get('content-type'), await get.text()]).toEqual([206, 'text/plain', 'typed']);
  });

  it('a header-signed copy whose x-amz-copy-source was added after signing is refused', async () => {
    const c = addingAfterSigning({ 'x-amz-copy-source': '/vault/secret.txt' });
    expect(
      await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'header-copy.txt', Body: '' }))),
    ).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await absent('inbox', 'header-copy.txt')).toBe(true);
  });

  it('an unsigned Content-MD5 on a presigned PUT is refused, as S3 does', async () => {
    const md5 = createHash('md5').update('body').digest('base64');
    const res = await fetch(await presignPut('md5.txt'), {
      method: 'PUT',
      body: 'body',
      headers: { 'content-md5': md5 },
    });
    expect(await xmlError(res)).toMatchObject({ status: 403, code: 'AccessDenied', headersNotSigned: 'content-md5' });
    expect(await absent('inbox', 'md5.txt')).toBe(true);
  });

  it('presigned: an unsigned x-amz-content-sha256 must agree with the signed payload mode', async () => {
    const url = await presignPut('sha.txt');
    expect(
      (await fetch(url, { method: 'PUT', body: 'abc', headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } }))
        .status,
    ).toBe(200);
    const hash = createHash('sha256').update('xyz').digest('hex');
    const res = await fetch(url, { method: 'PUT', body: 'xyz', headers: { 'x-amz-content-sha256': hash } });
    expect(await xmlError(res)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await read('inbox', 'sha.txt')).toBe('abc');
    // A second X-Amz-Content-Sha256 parameter (in other letters) is refused, not one of the two picked.
    const twice = await fetch(`${url}&x-amz-content-sha256=${hash}`, { method: 'PUT', body: 'xyz' });
    expect(await xmlError(twice)).toMatchObject({ status: 400, code: 'AuthorizationQueryParametersError' });
  });
});

describe('presigned URLs bind what they sign', () => {
  it('x-amz-* parameters the presigner hoisted into the URL act as their headers (tags)', async () => {
    const url = await getSignedUrl(
      presigner,
      new PutObjectCommand({ Bucket: 'inbox', Key: 'hoisted.txt', Tagging: 'team=storage' }),
      { expiresIn: 300 },
    );
    expect(new URL(url).searchParams.get('x-amz-tagging')).toBe('team=storage');
    expect((await fetch(url, { method: 'PUT', body: 'h' })).status).toBe(200);
    expect(await tags('inbox', 'hoisted.txt')).toEqual([{ Key: 'team', Value: 'storage' }]);
  });

  it('a presigned CopyObject copies what the key holder named', async () => {
    const url = await getSignedUrl(
      presigner,
      new CopyObjectCommand({ Bucket: 'inbox', Key: 'granted-copy.txt', CopySource: 'vault/secret.txt' }),
      { expiresIn: 300 },
    );
    const res = await fetch(url, { method: 'PUT' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await read('inbox', 'granted-copy.txt')).toBe('top secret');
  });

  it('a checksum signed into the URL is checked: the SDK default (CRC32 of an empty body) refuses other bytes, as S3 does', async () => {
    const url = await presignPut('crc.txt', s3);
    expect(new URL(url).searchParams.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
    expect(await xmlError(await fetch(url, { method: 'PUT', body: 'not empty' }))).toMatchObject({
      status: 400,
      code: 'BadDigest',
    });
    expect(await absent('inbox', 'crc.txt')).toBe(true);
    expect((await fetch(url, { method: 'PUT', body: '' })).status).toBe(200);
  });

  it('a query value means what was signed: a "+" is a plus sign for the signature and for the listing alike', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'a+b/plus.txt', Body: '+' }));
    await s3.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'a b/space.txt', Body: ' ' }));
    const url = await getSignedUrl(presigner, new ListObjectsV2Command({ Bucket: 'inbox', Prefix: 'a+b/' }), {
      expiresIn: 300,
    });
    expect(url).toContain('prefix=a%2Bb%2F');
    for (const variant of [url, url.replace('prefix=a%2Bb', 'prefix=a+b')]) {
      const res = await fetch(variant);
      const body = await res.text();
      expect(res.status, body).toBe(200);
      expect([...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1])).toEqual(['a+b/plus.txt']);
    }
  });
});

describe('integrity and versions', () => {
  it('a signed Content-MD5 is checked: a mismatch is BadDigest and nothing is stored', async () => {
    const wrong = createHash('md5').update('other').digest('base64');
    expect(
      await s3ErrorOf(
        s3.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'bad-md5.txt', Body: 'body', ContentMD5: wrong })),
      ),
    ).toEqual({ name: 'BadDigest', status: 400 });
    expect(await absent('inbox', 'bad-md5.txt')).toBe(true);
    const right = createHash('md5').update('body').digest('base64');
    await s3.send(new PutObjectCommand({ Bucket: 'inbox', Key: 'good-md5.txt', Body: 'body', ContentMD5: right }));
    expect(await read('inbox', 'good-md5.txt')).toBe('body');
  });

  it('a versionId other than "null" is refused (versioning is never on), not answered with the current object', async () => {
    expect(
      await s3ErrorOf(
        s3.send(new GetObjectCommand({ Bucket: 'vault', Key: 'secret.txt', VersionId: '3HL4kqtJlcpXroDTDmJ' })),
      ),
    ).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'vault', Key: 'secret.txt', VersionId: 'null' }))
      ).Body!.transformToString(),
    ).toBe('top secret');
    expect(
      await s3ErrorOf(
        s3.send(
          new CopyObjectCommand({
            Bucket: 'inbox',
            Key: 'v.txt',
            CopySource: 'vault/secret.txt?versionId=3HL4kqtJlcpXroDTDmJ',
          }),
        ),
      ),
    ).toEqual({ name: 'InvalidArgument', status: 400 });
  });
});
