// s3rver answers every S3 call @tus/s3-store makes except ListParts (GET ?uploadId=) and
// AbortMultipartUpload (DELETE ?uploadId=), which it refuses with 405. This loopback HTTP proxy
// in front of it forwards every other request untouched (signatures hold: the Host header is the
// one the client signed) and answers those two itself: ListParts from the parts it saw s3rver
// accept (UploadPart's ETag and size), from CreateMultipartUpload until the upload is completed
// or aborted (then NoSuchUpload, as S3 says); an abort forgets the upload.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Peer } from './s3-peer.js';

interface Part {
  etag: string;
  size: number;
  at: string;
}

export interface ListPartsProxy {
  endpoint: string;
  /** The peer's STORAGE_* settings, pointed at this proxy. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const xml = (res: http.ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

export async function startListPartsProxy(peer: S3Peer): Promise<ListPartsProxy> {
  const target = new URL(peer.endpoint);
  const uploads = new Map<string, Map<number, Part>>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    const uploadId = url.searchParams.get('uploadId');
    if (req.method === 'GET' && uploadId) {
      const parts = uploads.get(uploadId);
      if (!parts)
        return xml(res, 404, '<Error><Code>NoSuchUpload</Code><Message>The upload does not exist.</Message></Error>');
      const listed = [...parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(
          ([n, p]) =>
            `<Part><PartNumber>${n}</PartNumber><ETag>${p.etag}</ETag><Size>${p.size}</Size><LastModified>${p.at}</LastModified></Part>`,
        )
        .join('');
      return xml(
        res,
        200,
        `<ListPartsResult><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${listed}</ListPartsResult>`,
      );
    }
    if (req.method === 'DELETE' && uploadId) {
      const known = uploads.delete(uploadId);
      if (!known)
        return xml(res, 404, '<Error><Code>NoSuchUpload</Code><Message>The upload does not exist.</Message></Error>');
      res.writeHead(204).end();
      return;
    }
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const ok = (up.statusCode ?? 500) < 300;
        const partNumber = Number(url.searchParams.get('partNumber'));
        if (ok && req.method === 'PUT' && uploadId && partNumber) {
          uploads.get(uploadId)?.set(partNumber, { etag: String(up.headers.etag), size, at: new Date().toISOString() });
        }
        if (ok && uploadId && req.method === 'POST') uploads.delete(uploadId);
        if (ok && req.method === 'POST' && url.searchParams.has('uploads')) {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            const id = /<UploadId>([^<]+)<\/UploadId>/.exec(Buffer.concat(body).toString())?.[1];
            if (id) uploads.set(id, new Map());
            res.writeHead(up.statusCode ?? 200, up.headers);
            res.end(Buffer.concat(body));
          });
          return;
        }
        res.writeHead(up.statusCode ?? 500, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    env: { ...peer.env, STORAGE_S3_ENDPOINT: endpoint },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
