// One image transformation with sharp: the source's header is read first (format, dimensions,
// frames) and checked against the limits, so a decompression bomb is refused without decoding a
// pixel; then EXIF orientation is applied, the image resized and encoded, metadata stripped.
import sharp, { type Metadata, type Sharp } from 'sharp';
import { AppError } from '../../core/errors.js';
import type { OutputFormat, ResolvedTransform } from './image-params.js';

export interface ImageLimits {
  maxSourcePixels: number;
  maxDimension: number;
  timeoutSeconds: number;
}

/** Formats read from the source's bytes (never its declared type): no SVG, PDF or raw input. */
const READABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);
/** Output formats that keep every frame of an animated source. */
const ANIMATED_OUTPUTS = new Set(['webp', 'gif']);
const MIME: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

const notSupported = (message: string, cause?: unknown) =>
  new AppError('IMAGE_NOT_SUPPORTED', message, {
    cause,
    nextActions: 'Transform JPEG, PNG, WebP, GIF, AVIF or TIFF images; download other objects without parameters.',
  });

/** The format an `origin` answer is encoded in: the source's own, TIFF and HEIF as PNG. */
const originOf = (source: string): Exclude<OutputFormat, 'origin'> | 'gif' =>
  source === 'jpeg' || source === 'png' || source === 'webp' || source === 'avif' || source === 'gif' ? source : 'png';

/** The output size when only one side, or none, is given: the aspect kept, never enlarged, within maxDimension. */
function boundedSize(width: number, height: number, r: ResolvedTransform, max: number) {
  let scale = 1;
  if (r.width !== undefined) scale = Math.min(scale, r.width / width);
  if (r.height !== undefined) scale = Math.min(scale, r.height / height);
  scale = Math.min(scale, max / width, max / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function encode(image: Sharp, format: Exclude<OutputFormat, 'origin'> | 'gif', quality: number): Sharp {
  switch (format) {
    case 'webp':
      return image.webp({ quality, effort: 4 });
    case 'avif':
      // AVIF encoding is the costliest step; a low effort keeps one transformation bounded.
      return image.avif({ quality, effort: 2 });
    case 'jpeg':
      return image.jpeg({ quality, mozjpeg: false });
    case 'png':
      return image.png({ compressionLevel: 6 });
    case 'gif':
      return image.gif();
  }
}

/** Transforms `source`; 422 for what the limits refuse or sharp cannot read. */
export async function transformImage(
  source: Buffer,
  r: ResolvedTransform,
  limits: ImageLimits,
): Promise<{ data: Buffer; mimeType: string }> {
  let meta: Metadata;
  try {
    // Reads the header only; no pixel is decoded here.
    meta = await sharp(source, { limitInputPixels: false, pages: -1 }).metadata();
  } catch (err) {
    throw notSupported('The object is not an image that can be read.', err);
  }
  if (!READABLE.has(meta.format)) throw notSupported(`Images in ${meta.format} cannot be transformed.`);
  // AVIF is HEIF with AV1 inside; sharp names the container.
  const format = meta.format === 'heif' && meta.compression === 'av1' ? 'avif' : meta.format;
  const output = r.format === 'origin' ? originOf(format) : r.format;
  const frames = meta.pages ?? 1;
  const animated = frames > 1 && ANIMATED_OUTPUTS.has(output) && meta.format !== 'tiff' && meta.format !== 'heif';
  const pageHeight = meta.pageHeight ?? meta.height;
  const pixels = meta.width * pageHeight * (animated ? frames : 1);
  if (!meta.width || !pageHeight || pixels > limits.maxSourcePixels) {
    throw new AppError(
      'IMAGE_TOO_LARGE',
      `The image has ${pixels} pixels${animated ? ` in ${frames} frames` : ''}; at most ${limits.maxSourcePixels} are transformed.`,
      { nextActions: 'Upload a smaller image, or raise STORAGE_IMAGE_MAX_SOURCE_PIXELS.' },
    );
  }

  let image = sharp(source, {
    limitInputPixels: limits.maxSourcePixels,
    pages: animated ? -1 : 1,
    autoOrient: true,
    // failOn stays sharp's default ('warning', the strictest): a stricter setting here turned off
    // JPEG shrink-on-load and tripled the time of a thumbnail.
    sequentialRead: true,
  }).timeout({ seconds: limits.timeoutSeconds });
  const oriented = animated
    ? { width: meta.width, height: pageHeight }
    : { width: meta.autoOrient?.width ?? meta.width, height: meta.autoOrient?.height ?? pageHeight };
  if (r.width !== undefined && r.height !== undefined) {
    // contain keeps the whole image inside the box without padding it (as Supabase's does).
    const fit = r.fit === 'contain' ? 'inside' : r.fit;
    image = image.resize({ width: r.width, height: r.height, fit, withoutEnlargement: true });
  } else {
    const size = boundedSize(oriented.width, oriented.height, r, limits.maxDimension);
    if (size.width !== oriented.width || size.height !== oriented.height) {
      image = image.resize({ width: size.width, height: size.height, fit: 'fill' });
    }
  }
  try {
    const data = await encode(image, output, r.quality).toBuffer();
    return { data, mimeType: MIME[output]! };
  } catch (err) {
    if (err instanceof Error && /timeout/i.test(err.message)) {
      throw new AppError('IMAGE_TOO_LARGE', `The transformation took longer than ${limits.timeoutSeconds} s.`, {
        cause: err,
        nextActions: 'Ask for a smaller output or another format, or raise STORAGE_IMAGE_TIMEOUT_SECONDS.',
      });
    }
    throw notSupported('The image could not be decoded.', err);
  }
}
