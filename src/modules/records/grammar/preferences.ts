// The `Prefer` header: the records preferences it names. Unknown preferences and invalid values
// are ignored, as PostgREST does with its default `handling=lenient`, but kept in `invalid` so
// `handling=strict` can refuse them.
import type { Preferences } from './ast.js';

type Enumerated = 'return' | 'count' | 'resolution' | 'missing' | 'tx' | 'handling';

const ALLOWED: { [K in Enumerated]: readonly Required<Preferences>[K][] } = {
  return: ['minimal', 'representation', 'headers-only'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  tx: ['commit', 'rollback'],
  handling: ['strict', 'lenient'],
};

/** One `key=value`, or undefined when it is not a preference we understand. */
function understood(key: string, value: string): [keyof Preferences, string | number] | undefined {
  if (key === 'max-affected') return /^\d{1,15}$/.test(value) ? ['maxAffected', Number(value)] : undefined;
  if (key === 'timezone') return /^[A-Za-z0-9_+\-/]{1,64}$/.test(value) ? ['timezone', value] : undefined;
  if (!Object.hasOwn(ALLOWED, key)) return undefined;
  return (ALLOWED[key as Enumerated] as readonly string[]).includes(value) ? [key as Enumerated, value] : undefined;
}

/** `return=representation, count=exact tx=rollback`: comma and/or space separated; first valid value wins. */
export function parsePreferences(header: string | undefined): Preferences {
  const preferences: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const token of (header ?? '').split(/[\s,]+/)) {
    if (token === '') continue;
    const eq = token.indexOf('=');
    const found = eq > 0 ? understood(token.slice(0, eq), token.slice(eq + 1)) : undefined;
    if (!found) invalid.push(token);
    else if (!Object.hasOwn(preferences, found[0])) preferences[found[0]] = found[1];
  }
  if (invalid.length > 0) preferences.invalid = invalid;
  return preferences as Preferences;
}
