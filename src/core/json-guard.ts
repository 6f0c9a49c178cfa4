// Bounds on JSON that reaches PostgreSQL: nesting depth checked without recursion, on request text
// before it is parsed and on values before they are serialised, and JSON handed to the driver as
// text (JSON.stringify and postgres.js's own serialisers recurse, and overflow the stack).
import { AppError } from './errors.js';

/**
 * The deepest nesting any JSON value may have on its way to SQL, whatever MAX_JSON_DEPTH says:
 * JSON.stringify overflows V8's stack a few thousand levels down (measured: ~4,000).
 */
export const JSON_DEPTH_CEILING = 1000;

/**
 * Where JSON text first nests (objects and arrays) deeper than `max`: the top-level key it happens
 * under (`body` when the text is not an object), or undefined when it never does. One pass over
 * the characters, brackets inside strings ignored; malformed text is left to the parser to refuse.
 */
export function textTooDeepAt(text: string, max: number): string | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let lastString: [number, number] | undefined;
  let key: [number, number] | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) {
        inString = false;
        lastString = [stringStart, i + 1];
      }
    } else if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x3a) {
      if (depth === 1) key = lastString; // `"key":` of the top-level object
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return topLevelKey(text, key);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

function topLevelKey(text: string, key: [number, number] | undefined): string {
  if (!text.trimStart().startsWith('{') || key === undefined) return 'body';
  try {
    return String(JSON.parse(text.slice(key[0], key[1])));
  } catch {
    return 'body';
  }
}

/** Whether a value nests (objects and arrays) deeper than `max`, checked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** The 400 for JSON nested deeper than `max` levels (under `field`, a top-level key of the body). */
export function jsonTooDeepError(max: number, what = 'The JSON', field = 'body'): AppError {
  return new AppError('VALIDATION_ERROR', `${what} nests deeper than ${max} levels of objects and arrays.`, {
    details: [{ field, rule: 'max_depth', message: `must not nest deeper than ${max} levels` }],
    nextActions: `Flatten the JSON to at most ${max} levels of nested objects and arrays (MAX_JSON_DEPTH).`,
  });
}

export interface JsonTextLimits {
  /** Default JSON_DEPTH_CEILING. */
  maxDepth?: number;
  /** Characters of the serialised text; default unbounded (the body limit bounds request values). */
  maxChars?: number;
  /** What to call the value in the 400. */
  what?: string;
}

/**
 * A value as JSON text, for a parameter written `$n::text::jsonb` (bound as text, so postgres.js
 * never walks or re-serialises it). Too deep or too long is a 400 VALIDATION_ERROR, thrown here
 * before any connection is involved.
 */
export function jsonText(value: unknown, limits: JsonTextLimits = {}): string {
  const maxDepth = Math.min(limits.maxDepth ?? JSON_DEPTH_CEILING, JSON_DEPTH_CEILING);
  if (nestsDeeperThan(value, maxDepth)) throw jsonTooDeepError(maxDepth, limits.what);
  const text = JSON.stringify(value) ?? 'null';
  if (limits.maxChars !== undefined && text.length > limits.maxChars) {
    throw new AppError(
      'VALIDATION_ERROR',
      `${limits.what ?? 'The JSON'} is longer than ${limits.maxChars} characters.`,
      {
        nextActions: 'Send a smaller value.',
      },
    );
  }
  return text;
}
