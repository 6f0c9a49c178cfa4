// Audit details without secret values: every key that names a credential or a secret's value has
// its value replaced, at any depth, and a large body is cut to a bounded excerpt.

const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|^value$|authorization|credential|private/i;
const REDACTED = '[redacted]';
const MAX_DEPTH = 6;
const MAX_ARRAY_ITEMS = 20;
const MAX_STRING = 500;

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, MAX_ARRAY_ITEMS).map((item) => redactValue(item, depth + 1));
  if (Buffer.isBuffer(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return '[binary]';
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redactValue(inner, depth + 1);
  }
  return out;
}

/** A request body or params object made safe to store; null when there is nothing to store. */
export function redactSecrets(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return redactValue(value, 0);
}
