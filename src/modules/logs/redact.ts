// Audit details without secret values: every key that names a credential or a secret's value has
// its value replaced, at any depth, so has every value of a `headers` object (a schedule's headers
// carry tokens under any name), and the user:password of a URL (a webhook's, a schedule target's);
// a large body is cut to a bounded excerpt.

const SECRET_KEY = /pass(word)?|secret|token|totp|api[-_]?key|^value$|authorization|credential|private/i;
const REDACTED = '[redacted]';
const MAX_DEPTH = 6;
const MAX_ARRAY_ITEMS = 20;
const MAX_STRING = 500;
/** scheme://userinfo@ (the userinfo ends at the first /, @ or whitespace after the scheme). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

const withoutUserinfo = (text: string) => text.replace(URL_USERINFO, `$1${REDACTED}@`);

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    const clean = withoutUserinfo(value);
    return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…` : clean;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, MAX_ARRAY_ITEMS).map((item) => redactValue(item, depth + 1));
  if (Buffer.isBuffer(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return '[binary]';
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : key === 'headers' ? allRedacted(inner) : redactValue(inner, depth + 1);
  }
  return out;
}

/** A headers object with its names kept and every value replaced. */
function allRedacted(headers: unknown): unknown {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
    return headers === null ? null : REDACTED;
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

/** A request body or params object made safe to store; null when there is nothing to store. */
export function redactSecrets(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return redactValue(value, 0);
}
