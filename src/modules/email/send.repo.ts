// SQL for custom emails: the admin's send limits and users' permissions (email.send_settings, plus
// the hourly counts' overrides in system.rate_limit_settings) and the send log (email.send_log).
import type { Queryable } from '../../core/db.js';
import type { SenderKind } from './send.schemas.js';

export type UserRecipients = 'any' | 'self' | 'allow-list';

export interface StoredSendSettings {
  maxRecipients: number | null;
  maxBodyBytes: number | null;
  maxPerHour: number | null;
  usersMaxPerHour: number | null;
  usersMaySend: boolean | null;
  userRecipients: UserRecipients | null;
  recipientAllowList: string[] | null;
  /** The later of the two rows' update times; null while neither exists. */
  updatedAt: Date | null;
}

/** The names of the hourly rate limits: per sender, and all users together. */
export interface HourlyLimitNames {
  sender: string;
  users: string;
}

export async function readSendSettings(db: Queryable, limits: HourlyLimitNames): Promise<StoredSendSettings> {
  const [row] = await db<StoredSendSettings[]>`
    select s.max_recipients as "maxRecipients", s.max_body_bytes as "maxBodyBytes",
           r.max_hits as "maxPerHour", u.max_hits as "usersMaxPerHour",
           s.users_may_send as "usersMaySend", s.user_recipients as "userRecipients",
           s.recipient_allow_list as "recipientAllowList",
           greatest(s.updated_at, r.updated_at, u.updated_at) as "updatedAt"
    from (select 1) one
    left join email.send_settings s on true
    left join system.rate_limit_settings r on r.name = ${limits.sender}
    left join system.rate_limit_settings u on u.name = ${limits.users}`;
  return row!;
}

export interface SendSettingsRow {
  maxRecipients: number;
  maxBodyBytes: number;
  maxPerHour: number;
  usersMaxPerHour: number;
  usersMaySend: boolean;
  userRecipients: UserRecipients;
  recipientAllowList: string[];
}

export async function writeSendSettings(
  db: Queryable,
  limits: HourlyLimitNames,
  settings: SendSettingsRow,
  now: Date,
): Promise<void> {
  await db`
    insert into email.send_settings
      (max_recipients, max_body_bytes, users_may_send, user_recipients, recipient_allow_list, updated_at)
    values (${settings.maxRecipients}, ${settings.maxBodyBytes}, ${settings.usersMaySend},
            ${settings.userRecipients}, ${settings.recipientAllowList}::text[], ${now})
    on conflict (singleton) do update set max_recipients = excluded.max_recipients,
      max_body_bytes = excluded.max_body_bytes, users_may_send = excluded.users_may_send,
      user_recipients = excluded.user_recipients, recipient_allow_list = excluded.recipient_allow_list,
      updated_at = excluded.updated_at`;
  for (const [name, max] of [
    [limits.sender, settings.maxPerHour],
    [limits.users, settings.usersMaxPerHour],
  ] as const) {
    await db`
      insert into system.rate_limit_settings (name, max_hits, window_seconds, updated_at)
      values (${name}, ${max}, 3600, ${now})
      on conflict (name) do update set max_hits = excluded.max_hits, window_seconds = excluded.window_seconds,
        updated_at = excluded.updated_at`;
  }
}

export interface NewSendRecord {
  sentAt: Date;
  senderKind: SenderKind;
  senderId: string;
  recipientCount: number;
  status: 'accepted' | 'refused';
  acceptedCount: number;
  error: string | null;
}

export async function insertSendRecord(db: Queryable, record: NewSendRecord): Promise<void> {
  await db`
    insert into email.send_log (sent_at, sender_kind, sender_id, recipient_count, status, accepted_count, error)
    values (${record.sentAt}, ${record.senderKind}, ${record.senderId}, ${record.recipientCount},
            ${record.status}, ${record.acceptedCount}, ${record.error})`;
}

export interface SendRecord extends NewSendRecord {
  id: string;
}

/** One page of the log, newest first, and the total number of records. */
export async function listSendRecords(
  db: Queryable,
  page: { limit: number; offset: number },
): Promise<{ records: SendRecord[]; total: number }> {
  const records = await db<SendRecord[]>`
    select id::text as id, sent_at as "sentAt", sender_kind as "senderKind", sender_id as "senderId",
           recipient_count as "recipientCount", status, accepted_count as "acceptedCount", error
    from email.send_log l
    -- l.id: the bigint, not the text output column of the same name.
    order by l.sent_at desc, l.id desc
    limit ${page.limit} offset ${page.offset}`;
  const [count] = await db<{ total: number }[]>`select count(*)::int as total from email.send_log`;
  return { records, total: count!.total };
}
