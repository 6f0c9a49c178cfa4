// The flexible checksums S3 clients send with a body (x-amz-checksum-<algorithm>, as a header or
// as an aws-chunked trailer): CRC32 (zlib), CRC32C (table below), SHA-1 and SHA-256, base64.
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export interface Checksum {
  update(data: Buffer): void;
  /** The base64 digest, as S3 spells it. */
  digest(): string;
}

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), one table lookup per byte. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(data: Buffer, previous = 0): number {
  let crc = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) crc = CRC32C_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

function crc(step: (data: Buffer, previous: number) => number): Checksum {
  let value = 0;
  return {
    update: (data) => {
      value = step(data, value);
    },
    digest: () => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(value >>> 0);
      return out.toString('base64');
    },
  };
}

function hash(name: 'sha1' | 'sha256'): Checksum {
  const h = createHash(name);
  return { update: (data) => void h.update(data), digest: () => h.digest('base64') };
}

const ALGORITHMS: Record<string, () => Checksum> = {
  crc32: () => crc((data, previous) => crc32(data, previous)),
  crc32c: () => crc(crc32c),
  sha1: () => hash('sha1'),
  sha256: () => hash('sha256'),
};

/** The checksum for a header name (`x-amz-checksum-crc32` …), or undefined when unsupported. */
export function checksumFor(headerName: string): Checksum | undefined {
  const m = /^x-amz-checksum-([a-z0-9]+)$/.exec(headerName.toLowerCase());
  return m ? ALGORITHMS[m[1]!]?.() : undefined;
}

/** The algorithm's name as S3's error messages write it. */
export const algorithmLabel = (headerName: string) => headerName.replace(/^x-amz-checksum-/i, '').toUpperCase();
