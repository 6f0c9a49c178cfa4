// The body of a signed request as the bytes it carries, checked on the way through: a declared
// SHA-256, aws-chunked framing (signed chunks or unsigned chunks with a trailer), and a flexible
// checksum (x-amz-checksum-* header or trailer) and Content-MD5. A body that fails a check errors
// the stream, so nothing it fed is kept.
import { createHash, createHmac, type Hash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { algorithmLabel, checksumFor, type Checksum } from './checksums.js';
import { S3Error } from './s3-error.js';
import { EMPTY_SHA256, type Verified } from './sigv4.js';

const MAX_LINE = 4096;
const MAX_TRAILER = 4 * MAX_LINE;

type Headers = Record<string, string | string[] | undefined>;
/** x-amz-checksum-* headers that carry no checksum value. */
const NOT_CHECKSUMS = new Set(['x-amz-checksum-type', 'x-amz-checksum-mode', 'x-amz-checksum-algorithm']);

function hashChecked(expected: string): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (hash.digest('hex') !== expected) {
        return done(
          new S3Error(
            'XAmzContentSHA256Mismatch',
            'The provided x-amz-content-sha256 header does not match what was computed.',
          ),
        );
      }
      done();
    },
  });
}

/**
 * Decodes aws-chunked framing; with `auth`, every chunk's signature is checked in a chain. The
 * trailer after the final chunk goes into `trailers` (its signature checked when `signedTrailer`).
 */
function chunked(
  auth: Verified | undefined,
  trailers: Map<string, string>,
  signedTrailer: boolean,
  decodedLength?: number,
): Transform {
  let buffer: Buffer = Buffer.alloc(0);
  let decoded = 0;
  let trailer: Buffer = Buffer.alloc(0);
  let remaining = 0;
  let inData = false;
  let finished = false;
  let chunkSignature = '';
  let previous = auth?.signature ?? '';
  let hash: Hash | undefined;

  const bad = (message: string) => new S3Error('IncompleteBody', message);
  const checkChunk = () => {
    if (!auth) return;
    const stringToSign = [
      'AWS4-HMAC-SHA256-PAYLOAD',
      auth.amzDate,
      auth.scope,
      previous,
      EMPTY_SHA256,
      hash!.digest('hex'),
    ].join('\n');
    const expected = createHmac('sha256', auth.signingKey).update(stringToSign).digest('hex');
    if (expected !== chunkSignature) throw new S3Error('SignatureDoesNotMatch', 'A chunk signature does not match.');
    previous = chunkSignature;
  };

  const readTrailer = () => {
    const lines = trailer
      .toString('latin1')
      .split(/\r?\n/)
      .filter((line) => line !== '');
    let signature: string | undefined;
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw bad('A trailer line is malformed.');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'x-amz-trailer-signature') signature = value;
      else trailers.set(name, value);
    }
    if (!signedTrailer || !auth) return;
    // Signed: the trailing headers in canonical form (sorted `name:value\n` lines).
    const canonical = [...trailers]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}:${v}\n`)
      .join('');
    const stringToSign = [
      'AWS4-HMAC-SHA256-TRAILER',
      auth.amzDate,
      auth.scope,
      previous,
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    if (signature !== createHmac('sha256', auth.signingKey).update(stringToSign).digest('hex')) {
      throw new S3Error('SignatureDoesNotMatch', 'The trailer signature does not match.');
    }
  };

  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        if (finished) {
          trailer = Buffer.concat([trailer, chunk]);
          if (trailer.length > MAX_TRAILER) throw bad('The trailer is too long.');
          return done();
        }
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        while (buffer.length > 0 && !finished) {
          if (inData) {
            if (remaining > 0) {
              const take = buffer.subarray(0, Math.min(remaining, buffer.length));
              hash?.update(take);
              this.push(take);
              decoded += take.length;
              remaining -= take.length;
              buffer = buffer.subarray(take.length);
              continue;
            }
            if (buffer.length < 2) break;
            if (buffer[0] !== 13 || buffer[1] !== 10) throw bad('A chunk is not followed by CRLF.');
            buffer = buffer.subarray(2);
            checkChunk();
            inData = false;
            continue;
          }
          const eol = buffer.indexOf('\r\n');
          if (eol < 0) {
            if (buffer.length > MAX_LINE) throw bad('A chunk header is too long.');
            break;
          }
          const line = buffer.subarray(0, eol).toString('latin1');
          buffer = buffer.subarray(eol + 2);
          const m = /^([0-9a-fA-F]{1,16})(?:;chunk-signature=([0-9a-f]{64}))?$/.exec(line);
          if (!m) throw bad('A chunk header is malformed.');
          if (auth && !m[2]) throw bad('A signed chunk has no signature.');
          remaining = parseInt(m[1]!, 16);
          chunkSignature = m[2] ?? '';
          hash = auth ? createHash('sha256') : undefined;
          if (remaining === 0) {
            checkChunk();
            finished = true; // trailers (checksums) and the final CRLF follow; they carry no bytes
            trailer = buffer;
            buffer = Buffer.alloc(0);
          } else {
            inData = true;
          }
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        if (!finished) throw bad('The body ended before its final chunk.');
        if (decodedLength !== undefined && decoded !== decodedLength) {
          throw bad(`The chunks carry ${decoded} bytes, not the ${decodedLength} of x-amz-decoded-content-length.`);
        }
        readTrailer();
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** Passes the bytes through `checksum`; at the end they must match `expected()` (base64). */
function checksumChecked(name: string, checksum: Checksum, expected: () => string | undefined): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      checksum.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const declared = expected();
      if (declared === undefined)
        return done(new S3Error('InvalidRequest', `The ${name} trailer was declared but not sent.`));
      if (declared !== checksum.digest()) {
        return done(
          new S3Error('BadDigest', `The ${algorithmLabel(name)} you specified did not match the calculated checksum.`),
        );
      }
      done();
    },
  });
}

const single = (headers: Headers, name: string) => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** The flexible checksum a request declares: a trailer it promises, or a header it carries. */
function declaredChecksum(
  headers: Headers,
): { name: string; checksum: Checksum; inTrailer: boolean; value?: string } | undefined {
  const trailer = single(headers, 'x-amz-trailer')?.trim().toLowerCase();
  const name = trailer || Object.keys(headers).find((h) => h.startsWith('x-amz-checksum-') && !NOT_CHECKSUMS.has(h));
  if (!name) return undefined;
  const checksum = checksumFor(name);
  if (!checksum)
    throw new S3Error('InvalidRequest', `Unsupported checksum: ${name}. Use CRC32, CRC32C, SHA1 or SHA256.`);
  return { name, checksum, inTrailer: Boolean(trailer), value: trailer ? undefined : single(headers, name) };
}

/** Content-MD5 (base64 of 16 bytes), when sent: a check on the content bytes, as S3 makes it. */
function md5Checked(headers: Headers): Transform | undefined {
  const declared = single(headers, 'content-md5')?.trim();
  if (declared === undefined) return undefined;
  if (Buffer.from(declared, 'base64').length !== 16 || !/^[A-Za-z0-9+/]{22}==$/.test(declared)) {
    throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.');
  }
  const hash = createHash('md5');
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (hash.digest('base64') !== declared)
        return done(new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.'));
      done();
    },
  });
}

/** x-amz-decoded-content-length, when sent: the content bytes aws-chunked framing must carry. */
function decodedLength(headers: Headers): number | undefined {
  const value = single(headers, 'x-amz-decoded-content-length');
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value.trim()))
    throw new S3Error('InvalidArgument', 'x-amz-decoded-content-length must be a number of bytes.');
  return Number(value);
}

/** The request body as its content bytes, verified as the signature and checksum say it must be. */
export function payloadOf(raw: Readable, auth: Verified, headers: Headers = {}): Readable {
  const mode = auth.payloadHash;
  const declared = declaredChecksum(headers);
  const trailers = new Map<string, string>();
  const stages: Transform[] = [];
  if (mode === 'UNSIGNED-PAYLOAD') {
    // the bytes are not signed; only a checksum, if any, vouches for them
  } else if (/^[0-9a-f]{64}$/.test(mode)) {
    stages.push(hashChecked(mode));
  } else if (mode === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' || mode === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER') {
    stages.push(chunked(auth, trailers, mode.endsWith('-TRAILER'), decodedLength(headers)));
  } else if (mode === 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') {
    stages.push(chunked(undefined, trailers, false, decodedLength(headers)));
  } else {
    throw new S3Error('InvalidArgument', `Unsupported x-amz-content-sha256 value: ${mode}.`);
  }
  if (declared) {
    if (declared.inTrailer && !mode.endsWith('-TRAILER'))
      throw new S3Error('InvalidRequest', 'x-amz-trailer needs a STREAMING-…-TRAILER payload.');
    stages.push(
      checksumChecked(declared.name, declared.checksum, () =>
        declared.inTrailer ? trailers.get(declared.name) : declared.value,
      ),
    );
  }
  const md5 = md5Checked(headers);
  if (md5) stages.push(md5);
  return stages.length === 0 ? raw : pipeWithErrors(raw, stages);
}

/** raw → each transform in turn, with an error anywhere (client gone, a failed check) reaching the last reader. */
function pipeWithErrors(raw: Readable, transforms: Transform[]): Readable {
  const last = transforms.at(-1)!;
  // The reader (a pipeline) gets the failure; a late second emission must not crash the process.
  last.on('error', () => {});
  raw.on('error', (err) => last.destroy(err));
  let source: Readable = raw;
  for (const t of transforms) {
    if (t !== last) t.on('error', (err) => last.destroy(err));
    source = source.pipe(t);
  }
  return source;
}
