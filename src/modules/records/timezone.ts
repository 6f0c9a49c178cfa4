// The `timezone=` preference: checked against PostgreSQL's pg_timezone_names (read once, on the
// first request that sends it), then set as the transaction's TimeZone by the scope statement.
import type { RequestScope, Sql } from '../../core/db.js';
import type { Preferences } from './grammar/ast.js';
import { recordsError } from './records-errors.js';

export type TimezoneCheck = ReturnType<typeof timezoneCheck>;

/** One per app: the records and RPC services share it, so the zone list is read once. */
export function timezoneCheck(sql: Sql) {
  let names: Promise<Set<string>> | undefined;
  const load = () =>
    sql<{ name: string }[]>`select name from pg_timezone_names`.then((rows) => new Set(rows.map((r) => r.name)));

  return {
    /**
     * `scope` with the preferred time zone, and the preferences as applied: an unknown zone is a
     * 400 PGRST122 with handling=strict, else ignored (dropped from the preferences) as PostgREST does.
     */
    async apply(scope: RequestScope, prefs: Preferences): Promise<{ scope: RequestScope; prefs: Preferences }> {
      if (prefs.timezone === undefined) return { scope, prefs };
      names ??= load().catch((err: unknown) => {
        names = undefined;
        throw err;
      });
      if ((await names).has(prefs.timezone)) return { scope: { ...scope, timezone: prefs.timezone }, prefs };
      if (prefs.handling === 'strict') {
        throw recordsError('VALIDATION_ERROR', 'PGRST122', 'Invalid preferences given with handling=strict', {
          details: `Invalid preferences: timezone=${prefs.timezone}`,
        });
      }
      return { scope, prefs: { ...prefs, timezone: undefined } };
    },
  };
}
