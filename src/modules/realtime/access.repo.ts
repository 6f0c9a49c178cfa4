// The two permission checks of a socket, each one transaction under the caller's own role and
// claims (the records API's request scope) with `realtime.channel_name` set for policies:
// subscribe = a visible enabled channel row (SELECT on realtime.channels; with its presence setting), publish = an INSERT
// into realtime.messages that row-level security lets through.
import { type RequestScope, runScoped, runScopedThen, type Sql, withRequestScope } from '../../core/db.js';

const SET_CHANNEL = `select set_config('realtime.channel_name', $1, true)`;

/**
 * The enabled channel row matching `channel` that the caller may see (an exact pattern first), as
 * its presence setting; null when none is visible.
 */
export function visibleChannel(
  sql: Sql,
  scope: RequestScope,
  channel: string,
): Promise<{ presenceUserIds: boolean } | null> {
  return withRequestScope(sql, scope, async (tx) => {
    const [, rows] = await Promise.all([
      tx.unsafe(SET_CHANNEL, [channel]),
      tx.unsafe(
        `select presence_user_ids as "presenceUserIds" from realtime.channels
         where enabled and (pattern = $1 or $1 like pattern) order by pattern = $1 desc limit 1`,
        [channel],
      ),
    ]);
    const row = rows[0] as { presenceUserIds: boolean } | undefined;
    return row ? { presenceUserIds: row.presenceUserIds } : null;
  });
}

export interface PublishRow {
  channel: string;
  event: unknown;
  /** The payload as JSON text (undefined: none, which the table refuses). */
  payloadJson: string | undefined;
  senderType: 'system' | 'user';
  senderId: string | null;
}

/**
 * The publish, one statement: sets `realtime.channel_name` (set_config returns it, and the
 * channel match takes it as its argument, so it is set before the row exists and before any
 * INSERT policy judges the row), resolves the channel and inserts the message; its NOTIFY goes
 * out from the messages trigger at commit. Without RETURNING, so a publish needs only INSERT
 * (a RETURNING would also have to pass SELECT policies).
 */
const INSERT_MESSAGE = `insert into realtime.messages (event_name, channel_id, channel_name, payload, sender_type, sender_id)
  select $2, m.id, $1, $3::text::jsonb, $4, $5::uuid
  from (select realtime.match_channel(set_config('realtime.channel_name', $1, true)) as id) m
  where m.id is not null`;

/** The same insert in the bus's "collect" mode: the trigger leaves the message's JSON in the outbox. */
const INSERT_MESSAGE_COLLECTED = `${INSERT_MESSAGE} and set_config('plinth.bus', 'collect', true) = 'collect'`;
const READ_OUTBOX = `select current_setting('plinth.bus_outbox', true) as outbox`;

/**
 * Inserts the message when a channel matches; false when none does. BEGIN, the scope, the
 * statement and COMMIT go out together: one round trip. A refusal by row-level security or a
 * constraint throws the PostgreSQL error (nothing is stored). With `collect` (a broker carries
 * messages), the message is not announced by NOTIFY: its JSON is returned for the caller to
 * publish after the commit.
 */
export async function insertMessage(
  sql: Sql,
  scope: RequestScope,
  row: PublishRow,
  collect = false,
): Promise<{ inserted: boolean; outbox: string[] }> {
  const params = [
    row.channel,
    typeof row.event === 'string' ? row.event : null,
    row.payloadJson ?? null,
    row.senderType,
    row.senderId,
  ];
  if (!collect) {
    const inserted = await runScoped(sql, scope, INSERT_MESSAGE, params);
    return { inserted: inserted.count > 0, outbox: [] };
  }
  const [inserted, read] = await runScopedThen(sql, scope, INSERT_MESSAGE_COLLECTED, params, READ_OUTBOX);
  return { inserted: inserted.count > 0, outbox: outboxLines(read?.[0]?.outbox) };
}

/** The messages a collecting transaction left in its outbox (one JSON text per line). */
export const outboxLines = (outbox: unknown): string[] =>
  typeof outbox === 'string' ? outbox.split('\n').filter((line) => line.length > 0) : [];
