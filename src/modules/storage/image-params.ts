// The parameters of an image transformation as a URL carries them (width, height, resize,
// quality, format), their canonical text (what a signed URL's signature covers), and their
// resolution for one request: defaults filled in, `format=auto` chosen from the Accept header.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';

export const RESIZE_MODES = ['cover', 'contain', 'fill'] as const;
export const FORMATS = ['origin', 'webp', 'avif', 'jpeg', 'png', 'auto'] as const;
export const DEFAULT_QUALITY = 80;

const dimension = z.coerce.number().int().min(1);

/** The transformation query parameters (all optional); unknown parameters are the route's business. */
export const transformQuery = z.object({
  width: dimension.optional(),
  height: dimension.optional(),
  resize: z.enum(RESIZE_MODES).optional(),
  quality: z.coerce.number().int().min(20).max(100).optional(),
  format: z.enum(FORMATS).optional(),
});

export type Transform = z.infer<typeof transformQuery>;

const KEYS = ['width', 'height', 'resize', 'quality', 'format'] as const;

/** The transformation a query asks for; null when it names none of its parameters. */
export function transformOf(query: Transform): Transform | null {
  const asked: Transform = {};
  for (const k of KEYS) if (query[k] !== undefined) (asked as Record<string, unknown>)[k] = query[k];
  return Object.keys(asked).length > 0 ? asked : null;
}

/** `width=256&format=webp`: the parameters present, in a fixed order (signed, and put in URLs). */
export function canonicalTransform(t: Transform): string {
  const parts: string[] = [];
  for (const k of KEYS) if (t[k] !== undefined) parts.push(`${k}=${encodeURIComponent(String(t[k]))}`);
  return parts.join('&');
}

/**
 * What a signature covers for an object URL: the key alone, or the key and the transformation.
 * Keys never hold a control character (assertObjectKey), so the two cannot be confused.
 */
export const signedSubject = (key: string, t: Transform | null) => (t ? `${key}\n${canonicalTransform(t)}` : key);

export type OutputFormat = 'origin' | 'webp' | 'avif' | 'jpeg' | 'png';

/** A transformation with every choice made, for one source and one request. */
export interface ResolvedTransform {
  width?: number;
  height?: number;
  fit: (typeof RESIZE_MODES)[number];
  quality: number;
  format: OutputFormat;
  /** The answer depends on the Accept header (format=auto). */
  variesByAccept: boolean;
}

/** `format=auto`: WebP where the client takes it, else AVIF, else the source's own format. */
function pickByAccept(accept: string | undefined): OutputFormat {
  const types = (accept ?? '').toLowerCase();
  if (types.includes('image/webp')) return 'webp';
  if (types.includes('image/avif')) return 'avif';
  return 'origin';
}

/** Fills in the defaults, checks the output bounds (400) and resolves `auto` from `accept`. */
export function resolveTransform(
  t: Transform,
  options: { defaultFormat: 'origin' | 'auto'; maxDimension: number; accept?: string },
): ResolvedTransform {
  for (const k of ['width', 'height'] as const) {
    const v = t[k];
    if (v !== undefined && v > options.maxDimension) {
      throw new AppError('VALIDATION_ERROR', `${k}: at most ${options.maxDimension} pixels.`, {
        details: [{ field: k, message: `must be at most ${options.maxDimension}` }],
        nextActions: `Ask for at most ${options.maxDimension} pixels (STORAGE_IMAGE_MAX_DIMENSION).`,
      });
    }
  }
  const requested = t.format ?? options.defaultFormat;
  return {
    width: t.width,
    height: t.height,
    fit: t.resize ?? 'cover',
    quality: t.quality ?? DEFAULT_QUALITY,
    format: requested === 'auto' ? pickByAccept(options.accept) : requested,
    variesByAccept: requested === 'auto',
  };
}

/** The variant cache's key for a resolved transformation (of one source blob). */
export const variantParams = (r: ResolvedTransform) =>
  `w${r.width ?? ''}.h${r.height ?? ''}.${r.fit}.q${r.quality}.${r.format}`;
