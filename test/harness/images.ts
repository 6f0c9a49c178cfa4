// Images the image-transformation tests upload, made here with sharp (or, for the decompression
// bomb, written byte by byte): a plain PNG, a JPEG carrying EXIF orientation and a private tag, an
// animated GIF, a PNG whose header claims more pixels than it holds, and a photo-sized noise JPEG.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** A `width`×`height` PNG, left half red and right half blue (so a crop is visible). */
export async function twoTonePng(width: number, height: number): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const left = await sharp({ create: { width: half, height, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#0000ff' } })
    .composite([{ input: left, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

/** A `width`×`height` JPEG whose EXIF says "rotate 90° clockwise" (6), with a copyright and GPS-like tag. */
export function orientedJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#20a020' } })
    .jpeg()
    .withExif({ IFD0: { Copyright: 'secret-owner', ImageDescription: 'home 51.5N 0.1W' } })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** An animated GIF of `frames` (≤ 12) frames of `size`×`size`, each a different grey (identical frames would be merged). */
export async function animatedGif(size: number, frames: number): Promise<Buffer> {
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp({ create: { width: size, height: size, channels: 3, background: { r: i * 20, g: i * 20, b: i * 20 } } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(pages, { join: { animated: true } })
    .gif()
    .toBuffer();
}

const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A PNG whose header claims `width`×`height` 8-bit grey pixels while its data holds one row: a
 * few hundred bytes that would ask a decoder for width×height bytes of memory.
 */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A `width`×`height` JPEG of noise (a photo's worth of detail, so encoders work for real). */
export function noiseJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
}
