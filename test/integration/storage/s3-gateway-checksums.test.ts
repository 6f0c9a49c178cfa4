// Flexible checksums through the S3 gateway, driven by the real AWS SDK: a stream body goes as
// aws-chunked with an x-amz-checksum-* trailer, a buffer body with the checksum as a header; every
// algorithm the SDK offers is verified, and a body or checksum changed in transit is refused.
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  ChecksumAlgorithm,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsChunked, s3ErrorOf, startS3Gateway, type S3Gateway } from '../../harness/s3-peer.js';

let g: S3Gateway;
let s3: S3Client;
const bytes = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 17) % 256));
const stream = () => Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)]);

/** A client whose requests pass through `edit` after signing (what a network in between could do). */
function clientWith(
  edit: (request: { headers: Record<string, string>; body: any }) => Promise<void> | void,
  seen?: Record<string, string>[],
) {
  const c = g.client();
  c.middlewareStack.addRelativeTo(
    (next: any) => async (args: any) => {
      seen?.push({ ...args.request.headers });
      await edit(args.request);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'in-transit' },
  );
  return c;
}

async function collect(body: any): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const readBack = async (key: string) =>
  Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: 'sums', Key: key }))).Body!.transformToByteArray());
const absent = async (key: string) =>
  (await s3ErrorOf(s3.send(new HeadObjectCommand({ Bucket: 'sums', Key: key })))).status === 404;

beforeAll(async () => {
  g = await startS3Gateway();
  s3 = g.client();
  await g.t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: { 'x-api-key': g.t.apiKey },
    payload: { bucketName: 'sums' },
  });
});
afterAll(() => g.close());

describe('trailing checksums (STREAMING-UNSIGNED-PAYLOAD-TRAILER)', () => {
  for (const algorithm of [
    ChecksumAlgorithm.CRC32,
    ChecksumAlgorithm.CRC32C,
    ChecksumAlgorithm.SHA1,
    ChecksumAlgorithm.SHA256,
  ]) {
    it(`accepts a streamed body with its ${algorithm} trailer`, async () => {
      const seen: Record<string, string>[] = [];
      const c = clientWith(() => {}, seen);
      await c.send(
        new PutObjectCommand({
          Bucket: 'sums',
          Key: `trailer-${algorithm}`,
          Body: stream(),
          ContentLength: bytes.length,
          ChecksumAlgorithm: algorithm,
        }),
      );
      expect(seen[0]).toMatchObject({
        'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        'x-amz-trailer': `x-amz-checksum-${algorithm.toLowerCase()}`,
      });
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
    expect(
      await s3ErrorOf(
        c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'flipped', Body: stream(), ContentLength: bytes.length })),
      ),
    ).toEqual({ name: 'BadDigest', status: 400 });
    expect(await absent('flipped')).toBe(true);
  });

  it('chunks that carry other than x-amz-decoded-content-length bytes are refused', async () => {
    const c = g.client();
    c.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        args.request.headers['x-amz-decoded-content-length'] = String(bytes.length - 1);
        return next(args);
      },
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'short-length' },
    );
    expect(
      await s3ErrorOf(
        c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'long', Body: stream(), ContentLength: bytes.length })),
      ),
    ).toEqual({ name: 'IncompleteBody', status: 400 });
    expect(await absent('long')).toBe(true);
  });

  it('a declared trailer that never comes is refused', async () => {
    const c = clientWith(async (request) => {
      const framed = (await collect(request.body)).toString('latin1').replace(/x-amz-checksum-crc32:[^\r]*\r\n/, '');
      request.body = Buffer.from(framed, 'latin1'); // sent with transfer-encoding: chunked
    });
    expect(
      await s3ErrorOf(
        c.send(
          new PutObjectCommand({ Bucket: 'sums', Key: 'no-trailer', Body: stream(), ContentLength: bytes.length }),
        ),
      ),
    ).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await absent('no-trailer')).toBe(true);
  });
});

describe('signed chunks with a signed trailer (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER)', () => {
  const crc = (b: Buffer) => {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(crc32(b));
    return out.toString('base64');
  };
  /** PutObject with the body framed and signed by hand; `frame` may alter the framing after signing. */
  const send = (key: string, trailerValue: string, frame: (framed: Buffer) => Buffer = (f) => f) => {
    const c = g.client();
    const trailer = { 'x-amz-checksum-crc32': trailerValue };
    c.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        const headers = args.request.headers as Record<string, string>;
        for (const h of Object.keys(headers))
          if (h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm') delete headers[h];
        Object.assign(headers, {
          'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'x-amz-decoded-content-length': String(bytes.length),
          'content-encoding': 'aws-chunked',
          // Signatures and the CRC32 are fixed-width: the framed length is known before signing.
          'content-length': String(awsChunked(bytes, '0'.repeat(64), '20260101T000000Z', 'x', false, trailer).length),
        });
        return next(args);
      },
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'streaming-trailer-mode' },
    );
    c.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        const headers = args.request.headers as Record<string, string>;
        const seed = /Signature=([0-9a-f]{64})/.exec(headers.authorization!)![1]!;
        args.request.body = frame(
          awsChunked(bytes, seed, headers['x-amz-date']!, g.key.secretAccessKey, false, trailer),
        );
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'chunk-signer' },
    );
    return c.send(new PutObjectCommand({ Bucket: 'sums', Key: key, Body: bytes }));
  };

  it('accepts chunks and a trailer whose signatures and checksum hold', async () => {
    await send('signed-trailer', crc(bytes));
    expect((await readBack('signed-trailer')).equals(bytes)).toBe(true);
  });

  it('a trailer changed after signing → SignatureDoesNotMatch; a signed wrong checksum → BadDigest', async () => {
    const right = crc(bytes);
    const other = crc(Buffer.from('other'));
    const swapped = (framed: Buffer) =>
      Buffer.from(framed.toString('latin1').replace(`crc32:${right}`, `crc32:${other}`), 'latin1');
    expect(await s3ErrorOf(send('swapped-trailer', right, swapped))).toEqual({
      name: 'SignatureDoesNotMatch',
      status: 403,
    });
    expect(await absent('swapped-trailer')).toBe(true);
    expect(await s3ErrorOf(send('wrong-trailer', other))).toEqual({ name: 'BadDigest', status: 400 });
    expect(await absent('wrong-trailer')).toBe(true);
  });
});

describe('checksum headers', () => {
  for (const algorithm of [
    ChecksumAlgorithm.CRC32,
    ChecksumAlgorithm.CRC32C,
    ChecksumAlgorithm.SHA1,
    ChecksumAlgorithm.SHA256,
  ]) {
    it(`accepts a buffer body with its ${algorithm} header`, async () => {
      const seen: Record<string, string>[] = [];
      await clientWith(() => {}, seen).send(
        new PutObjectCommand({ Bucket: 'sums', Key: `header-${algorithm}`, Body: bytes, ChecksumAlgorithm: algorithm }),
      );
      expect(seen[0]![`x-amz-checksum-${algorithm.toLowerCase()}`]).toBeDefined();
      expect((await readBack(`header-${algorithm}`)).equals(bytes)).toBe(true);
    });
  }

  it('a checksum that does not match the body: BadDigest, nothing stored', async () => {
    const c = g.client();
    c.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        args.request.headers['x-amz-checksum-crc32'] = 'AAAAAA==';
        return next(args);
      },
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'wrong-sum' },
    );
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'wrong-sum', Body: bytes })))).toEqual({
      name: 'BadDigest',
      status: 400,
    });
    expect(await absent('wrong-sum')).toBe(true);
  });

  it('an algorithm the gateway cannot check is refused, not taken unchecked', async () => {
    const c = g.client();
    c.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        for (const h of Object.keys(args.request.headers))
          if (h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm') delete args.request.headers[h];
        args.request.headers['x-amz-checksum-crc64nvme'] = 'AAAAAAAAAAA=';
        return next(args);
      },
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'crc64' },
    );
    expect(await s3ErrorOf(c.send(new PutObjectCommand({ Bucket: 'sums', Key: 'crc64', Body: bytes })))).toEqual({
      name: 'InvalidRequest',
      status: 400,
    });
  });
});
