// The `Prefer` header: the records preferences it names, leniently (unknown preferences and
// invalid values are ignored, as PostgREST does with its default `handling=lenient`).
import type { Preferences } from './ast.js';

const ALLOWED: { [K in keyof Required<Preferences>]: readonly Required<Preferences>[K][] } = {
  return: ['minimal', 'representation', 'headers-only'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  tx: ['commit', 'rollback'],
};

/** `return=representation, count=exact tx=rollback`: comma and/or space separated; first valid value wins. */
export function parsePreferences(header: string | undefined): Preferences {
  const preferences: Record<string, string> = {};
  for (const token of (header ?? '').split(/[\s,]+/)) {
    const eq = token.indexOf('=');
    if (eq <= 0) continue;
    const key = token.slice(0, eq);
    const value = token.slice(eq + 1);
    if (!Object.hasOwn(ALLOWED, key) || Object.hasOwn(preferences, key)) continue;
    if ((ALLOWED[key as keyof Preferences] as readonly string[]).includes(value)) preferences[key] = value;
  }
  return preferences as Preferences;
}
