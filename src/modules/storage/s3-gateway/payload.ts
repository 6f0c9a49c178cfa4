// The body of a signed request as the bytes it carries, checked on the way through: a declared
// SHA-256, or aws-chunked framing (signed chunks or unsigned chunks with a trailer). A body that
// fails its check errors the stream, so nothing it fed is kept.
import { createHash, createHmac, type Hash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { S3Error } from './s3-error.js';
import { EMPTY_SHA256, type Verified } from './sigv4.js';

const MAX_LINE = 4096;

function hashChecked(expected: string): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (hash.digest('hex') !== expected) {
        return done(new S3Error('XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.'));
      }
      done();
    },
  });
}

/** Decodes aws-chunked framing; with `auth`, every chunk's signature is checked in a chain. */
function chunked(auth: Verified | undefined): Transform {
  let buffer: Buffer = Buffer.alloc(0);
  let remaining = 0;
  let inData = false;
  let finished = false;
  let chunkSignature = '';
  let previous = auth?.signature ?? '';
  let hash: Hash | undefined;

  const bad = (message: string) => new S3Error('IncompleteBody', message);
  const checkChunk = () => {
    if (!auth) return;
    const stringToSign = ['AWS4-HMAC-SHA256-PAYLOAD', auth.amzDate, auth.scope, previous, EMPTY_SHA256, hash!.digest('hex')].join('\n');
    const expected = createHmac('sha256', auth.signingKey).update(stringToSign).digest('hex');
    if (expected !== chunkSignature) throw new S3Error('SignatureDoesNotMatch', 'A chunk signature does not match.');
    previous = chunkSignature;
  };

  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        while (buffer.length > 0 && !finished) {
          if (inData) {
            if (remaining > 0) {
              const take = buffer.subarray(0, Math.min(remaining, buffer.length));
              hash?.update(take);
              this.push(take);
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
      done(finished ? undefined : bad('The body ended before its final chunk.'));
    },
  });
}

/** The request body as its content bytes, verified as the signature says it must be. */
export function payloadOf(raw: Readable, auth: Verified): Readable {
  const mode = auth.payloadHash;
  if (mode === 'UNSIGNED-PAYLOAD') return raw;
  if (/^[0-9a-f]{64}$/.test(mode)) return pipeWithErrors(raw, hashChecked(mode));
  if (mode === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' || mode === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER') return pipeWithErrors(raw, chunked(auth));
  if (mode === 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') return pipeWithErrors(raw, chunked(undefined));
  throw new S3Error('InvalidArgument', `Unsupported x-amz-content-sha256 value: ${mode}.`);
}

/** raw → transform, with an error of raw (client gone) forwarded to the transform's reader. */
function pipeWithErrors(raw: Readable, transform: Transform): Readable {
  raw.on('error', (err) => transform.destroy(err));
  // The reader (a pipeline) gets the failure; a late second emission must not crash the process.
  transform.on('error', () => {});
  return raw.pipe(transform);
}
