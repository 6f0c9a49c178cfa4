// What to change, said for each field a request's schema refused (zod's issue codes and their
// parameters), so a 400 VALIDATION_ERROR carries `nextActions` a caller (or an agent) can act on.

const list = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** At least / at most, in the words of what was measured (characters, items, a number). */
function bound(origin: unknown, limit: unknown, inclusive: unknown, least: boolean): string {
  const n = String(limit);
  const plural = n === '1' ? '' : 's';
  if (origin === 'string') return `${least ? 'at least' : 'at most'} ${n} character${plural} long`;
  if (origin === 'array' || origin === 'set') return `${least ? 'at least' : 'at most'} ${n} item${plural}`;
  if (inclusive === false) return `${least ? 'greater' : 'less'} than ${n}`;
  return `${least ? 'at least' : 'at most'} ${n}`;
}

/** One fix, e.g. `set querystring.exclude_console to one of "true", "false"`. */
export function fixFor(field: string, rule: string, params: Record<string, unknown>, message: string): string {
  switch (rule) {
    case 'unrecognized_keys':
      return `remove ${field}`;
    case 'invalid_value':
      if (Array.isArray(params.values)) {
        return params.values.length === 1
          ? `set ${field} to ${list(params.values)}`
          : `set ${field} to one of ${list(params.values)}`;
      }
      break;
    case 'invalid_type':
      if (typeof params.expected === 'string') {
        return /received undefined$/.test(message)
          ? `send ${field} (${params.expected})`
          : `send ${field} as ${params.expected}`;
      }
      break;
    case 'too_small':
      return `make ${field} ${bound(params.origin, params.minimum, params.inclusive, true)}`;
    case 'too_big':
      return `make ${field} ${bound(params.origin, params.maximum, params.inclusive, false)}`;
    case 'invalid_format':
      if (params.format === 'regex' && typeof params.pattern === 'string') {
        return `send ${field} matching ${params.pattern}`;
      }
      if (typeof params.format === 'string') return `send ${field} as a valid ${params.format}`;
      break;
  }
  return `correct ${field} (${message})`;
}

const MAX_FIXES = 5;

/** The `nextActions` of a refused request: its first fixes, and where every field is described. */
export function nextActionsOf(fixes: string[]): string {
  const distinct = [...new Set(fixes)];
  const shown = distinct.slice(0, MAX_FIXES);
  const more = distinct.length > shown.length ? `; and ${distinct.length - shown.length} more` : '';
  const text = `${shown.join('; ')}${more}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}. The API reference at /api/reference describes each field.`;
}
