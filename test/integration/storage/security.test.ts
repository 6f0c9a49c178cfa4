// Hostile input against storage over a real socket: the REST routes and the S3 gateway answer a
// clear 4xx (never a 500) for malformed names, keys, prefixes, tokens and signatures.
import type { AddressInfo } from 'node:net';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ErrorOf, startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let peer: S3Peer;
let base: string;
let s3: S3Client;
let key: { accessKeyId: string; secretAccessKey: string };
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  peer = await startS3Peer();
  t = await startTestApp({ env: peer.env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  key = (await t.request({ method: 'POST', url: '/api/storage/s3/access-keys', headers: admin(), payload: {} })).json;
  s3 = new S3Client({ endpoint: `${base}/storage/v1/s3`, region: 'us-east-1', forcePathStyle: true, credentials: key });
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: admin(),
    payload: { bucketName: 'sec', isPublic: false },
  });
  t.clock.advance(Date.now() - t.clock.now().getTime());
  await s3.send(new PutObjectCommand({ Bucket: 'sec', Key: 'a/b.txt', Body: 'hello' }));
});
afterAll(async () => {
  s3?.destroy();
  await t?.close();
  await peer?.close();
});

const amzDate = () =>
  t.clock
    .now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

describe('REST storage with hostile input', () => {
  it('answers 400 for a NUL byte in a list prefix or search', async () => {
    for (const q of ['prefix=%00', 'search=a%00b']) {
      const res = await fetch(`${base}/api/storage/buckets/sec/objects?${q}`, { headers: admin() });
      expect(res.status).toBe(400);
      expect((await res.json()).statusCode).toBe(400);
    }
  });
});

/** What a browser form does: the policy's fields, then the file. */
async function postForm(plan: { uploadUrl: string; fields: Record<string, string> }, bytes: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(plan.fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'f.txt');
  return fetch(plan.uploadUrl, { method: 'POST', body: form });
}

describe('direct uploads', () => {
  it('a confirmed object cannot be rewritten by posting its policy again', async () => {
    const plan = (
      await t.request({
        method: 'POST',
        url: '/api/storage/buckets/sec/upload-strategy',
        headers: admin(),
        payload: { filename: 'once.txt' },
      })
    ).json;
    expect((await postForm(plan, 'hello')).status).toBeLessThan(300);
    expect(
      (await t.request({ method: 'POST', url: plan.confirmUrl, headers: admin(), payload: { size: 5 } })).statusCode,
    ).toBe(200);
    await postForm(plan, 'rewritten, and longer');
    const res = await fetch(`${base}/api/storage/buckets/sec/objects/once.txt`, { headers: admin() });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
  });
});

describe('REST storage fuzzed', () => {
  it('answers every hostile request below 500, refusals in the error shape', async () => {
    const paths = [
      '/api/storage/buckets/sec/objects/%00',
      '/api/storage/buckets/sec/objects/a%2F..%2Fb',
      '/api/storage/buckets/sec/objects/..',
      '/api/storage/buckets/sec/objects/a//b',
      '/api/storage/buckets/sec/objects/%ED%A0%80',
      '/api/storage/buckets/sec/objects/%E0%A4%A',
      '/api/storage/buckets/s%00c/objects/a',
      '/api/storage/buckets/%F0%9F%98%80/objects/a',
      `/api/storage/buckets/sec/objects/${'k'.repeat(2000)}`,
      '/api/storage/buckets/sec/objects/a/b.txt?expires=1e400&token=x',
      '/api/storage/buckets/sec/objects/a/b.txt?expires=-1&token=%00',
      `/api/storage/buckets/sec/objects/a/b.txt?token=${'A'.repeat(200)}`,
      '/api/storage/buckets/sec/objects?limit=1e9&offset=-1',
      '/api/storage/buckets/sec/download-strategy/objects/a/b.txt?expiresIn=1e400',
      '/api/storage/buckets/sec/objects?search=%ED%A0%80',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'DELETE', 'PUT', 'POST']) {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { ...admin(), 'content-type': 'application/json', range: 'bytes=9-1,x' },
          body: method === 'GET' ? undefined : '{"size": -1, "keys": ["%00"]',
        });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(500);
        if (res.status >= 400) expect(JSON.parse(text).statusCode, `${method} ${path}`).toBe(res.status);
      }
    }
  });
});

describe('S3 gateway with hostile input', () => {
  it('answers 403, not 500, for a signed header name that is an Object property', async () => {
    const date = amzDate();
    for (const name of ['constructor', '__proto__', 'tostring']) {
      const res = await fetch(`${base}/storage/v1/s3/sec/a/b.txt`, {
        headers: {
          'x-amz-date': date,
          'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
          authorization: `AWS4-HMAC-SHA256 Credential=${key.accessKeyId}/${date.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=${name};host, Signature=${'0'.repeat(64)}`,
        },
      });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('<Code>AccessDenied</Code>');
    }
  });

  it('answers 400, not 500, for NUL bytes in a list prefix, start-after or continuation token', async () => {
    for (const input of [
      { Prefix: '\u0000' },
      { StartAfter: 'a\u0000' },
      { ContinuationToken: Buffer.from('a\u0000').toString('base64url') },
    ]) {
      expect(await s3ErrorOf(s3.send(new ListObjectsV2Command({ Bucket: 'sec', ...input })))).toMatchObject({
        status: 400,
      });
    }
  });

  it('answers 400, not 500, for a NUL in object tags (header or document)', async () => {
    expect(
      await s3ErrorOf(s3.send(new PutObjectCommand({ Bucket: 'sec', Key: 'tagged', Body: 'x', Tagging: 'k=%00' }))),
    ).toMatchObject({ status: 400 });
    const tagging = { TagSet: [{ Key: 'k', Value: 'a\u0000b' }] };
    expect(
      await s3ErrorOf(s3.send(new PutObjectTaggingCommand({ Bucket: 'sec', Key: 'a/b.txt', Tagging: tagging }))),
    ).toMatchObject({ status: 400 });
  });

  it('answers signed but hostile operations below 500', async () => {
    const calls = [
      new GetObjectCommand({ Bucket: 'sec', Key: '../etc/passwd' }),
      new GetObjectCommand({ Bucket: 'sec', Key: 'a/./b' }),
      new GetObjectCommand({ Bucket: 'sec', Key: 'a/b.txt', Range: 'bytes=99999999999999999999-' }),
      new GetObjectCommand({ Bucket: 'sec', Key: 'k'.repeat(1100) }),
      new PutObjectCommand({ Bucket: 'sec', Key: 'a\\b', Body: 'x' }),
      new CopyObjectCommand({ Bucket: 'sec', Key: 'copy', CopySource: '%E0%A4%A' }),
      new CopyObjectCommand({ Bucket: 'sec', Key: 'copy', CopySource: 'sec/..%2Fx' }),
      new CopyObjectCommand({ Bucket: 'sec', Key: 'copy', CopySource: 'n%00pe/a' }),
      new UploadPartCommand({ Bucket: 'sec', Key: 'a', UploadId: 'not-a-uuid', PartNumber: 1, Body: 'x' }),
      new UploadPartCommand({
        Bucket: 'sec',
        Key: 'a',
        UploadId: '00000000-0000-0000-0000-000000000000',
        PartNumber: 99999,
        Body: 'x',
      }),
      new ListPartsCommand({ Bucket: 'sec', Key: 'a', UploadId: '00000000-0000-0000-0000-000000000000', MaxParts: -5 }),
      new ListObjectsV2Command({ Bucket: 'sec', MaxKeys: -1, ContinuationToken: '!!!' }),
      new DeleteObjectsCommand({
        Bucket: 'sec',
        Delete: { Objects: Array.from({ length: 1001 }, (_, i) => ({ Key: `k${i}` })) },
      }),
    ];
    for (const call of calls) {
      const status = await s3.send(call as never).then(
        () => 200,
        (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode ?? 0,
      );
      expect(status, call.constructor.name).toBeGreaterThan(0);
      expect(status, `${call.constructor.name} ${JSON.stringify(call.input).slice(0, 80)}`).toBeLessThan(500);
    }
  });
});
