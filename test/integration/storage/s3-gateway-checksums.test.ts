// Flexible checksums through the S3 gateway, driven by the real AWS SDK: a stream body goes as
// aws-chunked with an x-amz-checksum-* trailer, a buffer body with the checksum as a header; every
// algorithm the SDK offers is verified, and a body or checksum changed in transit is refused.
import { Readable } from 'node:stream';
import { ChecksumAlgorithm, GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ErrorOf, startS3Gateway, type S3Gateway } from '../../harness/s3-peer.js';

let g: S3Gateway;
let s3: S3Client;
const bytes = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 17) % 256));
const stream = () => Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)]);

/** A client whose requests pass through `edit` after signing (what a network in between could do). */
function clientWith(edit: (request: { headers: Record<string, string>; body: any }) => Promise<void> | void, seen?: Record<string, string>[]) {
  const c = g.client();
  c.middlewareStack.addRelativeTo((next: any) => async (args: any) => {
    seen?.push({ ...args.request.headers });
    await edit(args.request);
    return next(args);
  }, { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'in-transit' });
  return c;
}

async function collect(body: any): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const readBack = async (key: string) =>
  Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: 'sums', Key: key }))).Body!.transformToByteArray());
const absent = async (key: string) => (await s3ErrorOf(s3.send(new HeadObjectCommand({ Bucket: 'sums', Key: key })))).status === 404;

beforeAll(async () => {
  g = await startS3Gateway();
  s3 = g.client();
  await g.t.request({ method: 'POST', url: '/api/storage/buckets', headers: { 'x-api-key': g.t.apiKey }, payload: { bucketName: 'sums' } });
});
afterAll(() => g.close());

describe('trailing checksums (STREAMING-UNSIGNED-PAYLOAD-TRAILER)', () => {
  for (const algorithm of [ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA1, ChecksumAlgorithm.SHA256]) {
    it(`accepts a streamed body with its ${algorithm} trailer`, async () => {
      const seen: Record<string, string>[] = [];
      const c = clientWith(() => {}, seen);
      await c.send(new PutObjectCommand({ Bucket: 'sums', Key: `trailer-${algorithm}`, Body: stream(), ContentLength: bytes.length, ChecksumAlgorithm: algorithm }));
      expect(seen[0]).toMatchObject({ 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'x-amz-trailer': `x-amz-checksum-${algorithm.toLowerCase()}` });
      expect((await readBack(`trailer-${algorithm}`)).equals(bytes)).toBe(true);
    });
  }

  it('a byte changed in transit fails the trailer: BadDigest, nothing stored', async () => {
    const c = clientWith(async (request) => {
      const framed = await collect(request.body);
      const dataStart = framed.indexOf('\r\n') + 2;
      framed[dataStart + 1000] = framed[dataStart + 1000]! ^ 0xff;
      request.body = framed;
    });
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'flipped', Body: stream(), ContentLength: bytes.length }))))
      .toEqual({ name: 'BadDigest', status: 400 });
    expect(await absent('flipped')).toBe(true);
  });

  it('a declared trailer that never comes is refused', async () => {
    const c = clientWith(async (request) => {
      const framed = (await collect(request.body)).toString('latin1').replace(/x-amz-checksum-crc32:[^\r]*\r\n/, '');
      request.body = Buffer.from(framed, 'latin1'); // sent with transfer-encoding: chunked
    });
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'no-trailer', Body: stream(), ContentLength: bytes.length }))))
      .toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await absent('no-trailer')).toBe(true);
  });
});

describe('checksum headers', () => {
  for (const algorithm of [ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA1, ChecksumAlgorithm.SHA256]) {
    it(`accepts a buffer body with its ${algorithm} header`, async () => {
      const seen: Record<string, string>[] = [];
      await clientWith(() => {}, seen).send(new PutObjectCommand({ Bucket: 'sums', Key: `header-${algorithm}`, Body: bytes, ChecksumAlgorithm: algorithm }));
      expect(seen[0]![`x-amz-checksum-${algorithm.toLowerCase()}`]).toBeDefined();
      expect((await readBack(`header-${algorithm}`)).equals(bytes)).toBe(true);
    });
  }

  it('a checksum that does not match the body: BadDigest, nothing stored', async () => {
    const c = g.client();
    c.middlewareStack.addRelativeTo((next: any) => async (args: any) => {
      args.request.headers['x-amz-checksum-crc32'] = 'AAAAAA==';
      return next(args);
    }, { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'wrong-sum' });
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'wrong-sum', Body: bytes })))).toEqual({ name: 'BadDigest', status: 400 });
    expect(await absent('wrong-sum')).toBe(true);
  });

  it('an algorithm the gateway cannot check is refused, not taken unchecked', async () => {
    const c = g.client();
    c.middlewareStack.addRelativeTo((next: any) => async (args: any) => {
      for (const h of Object.keys(args.request.headers)) if (h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm') delete args.request.headers[h];
      args.request.headers['x-amz-checksum-crc64nvme'] = 'AAAAAAAAAAA=';
      return next(args);
    }, { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'crc64' });
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'crc64', Body: bytes })))).toEqual({ name: 'InvalidRequest', status: 400 });
  });
});
