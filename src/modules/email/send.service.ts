// Custom emails (POST /api/email/send-raw): checks the message against the admin's limits (and a
// user against the user-sending rules), counts the sender's and all users' hourly sends, hands the
// HTML to SMTP as given and records the outcome.
// Also the admin's view and change of the limits, and the send log.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { createRateLimiter, type Limit } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import { notConfigured, smtpRefused } from './delivery-errors.js';
import { assertUserMaySend, type FindSender } from './user-sending.js';
import type { Mailer } from './mailer.js';
import * as repo from './send.repo.js';
import type {
  SendEmailRequest,
  SenderKind,
  SendRecordView,
  SendSettingsUpdate,
  SendSettingsView,
} from './send.schemas.js';

export const SEND_DEFAULTS = {
  maxRecipients: 50,
  maxBodyBytes: 256 * 1024,
  maxPerHour: 100,
  usersMaySend: false,
  usersMaxPerHour: 100,
  userRecipients: 'any',
  recipientAllowList: [] as string[],
} as const;

/** The hourly count per sender, a rate limit whose override the admin sets through the send settings. */
export const hourlySendLimit: Limit = {
  name: 'email-send-raw:sender',
  max: SEND_DEFAULTS.maxPerHour,
  windowSeconds: 60 * 60,
  message: 'Too many emails sent in this hour. Try again in {seconds} seconds.',
};

/** The hourly count of all users' sends together: the project's sender reputation is shared. */
export const usersHourlySendLimit: Limit = {
  name: 'email-send-raw:users',
  max: SEND_DEFAULTS.usersMaxPerHour,
  windowSeconds: 60 * 60,
  message: "This project's users together sent the most emails allowed in this hour. Try again in {seconds} seconds.",
};
const LIMIT_NAMES = { sender: hourlySendLimit.name, users: usersHourlySendLimit.name };

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const invalid = (message: string, nextActions: string) => new AppError('VALIDATION_ERROR', message, { nextActions });

/** Who is sending, for the hourly count and the log; the anon key may not send. */
export function senderOf(principal: Principal): { kind: SenderKind; id: string } {
  if (principal.kind === 'user') return { kind: 'user', id: principal.userId };
  if (principal.kind === 'admin' && principal.via === 'token') return { kind: 'admin', id: principal.subject };
  if (principal.kind === 'admin') return { kind: 'api-key', id: 'api-key' };
  throw new AppError('UNAUTHORIZED', 'Sending emails requires an authenticated user.', {
    nextActions: 'Sign in and send the access token, or call from a server with the API key.',
  });
}

const recordView = (r: repo.SendRecord): SendRecordView => ({
  id: r.id,
  sentAt: r.sentAt.toISOString(),
  sender: { kind: r.senderKind, id: r.senderId },
  recipientCount: r.recipientCount,
  acceptedCount: r.acceptedCount,
  status: r.status,
  error: r.error,
});

export type SendService = ReturnType<typeof createSendService>;

export function createSendService(deps: Pick<Deps, 'sql' | 'clock'>, mailer: Mailer, findSender: FindSender) {
  const limiter = createRateLimiter(deps.sql, deps.clock);

  async function settings(): Promise<SendSettingsView> {
    const stored = await repo.readSendSettings(deps.sql, LIMIT_NAMES);
    return {
      maxRecipients: stored.maxRecipients ?? SEND_DEFAULTS.maxRecipients,
      maxBodyBytes: stored.maxBodyBytes ?? SEND_DEFAULTS.maxBodyBytes,
      maxPerHour: stored.maxPerHour ?? SEND_DEFAULTS.maxPerHour,
      usersMaySend: stored.usersMaySend ?? SEND_DEFAULTS.usersMaySend,
      usersMaxPerHour: stored.usersMaxPerHour ?? SEND_DEFAULTS.usersMaxPerHour,
      userRecipients: stored.userRecipients ?? SEND_DEFAULTS.userRecipients,
      recipientAllowList: stored.recipientAllowList ?? [...SEND_DEFAULTS.recipientAllowList],
      custom: stored.updatedAt !== null,
      updatedAt: stored.updatedAt?.toISOString() ?? null,
    };
  }

  function checkMessage(limits: SendSettingsView, recipientCount: number, html: string): void {
    if (recipientCount > limits.maxRecipients) {
      throw invalid(
        `The message has ${recipientCount} recipients (to, cc and bcc together); at most ${limits.maxRecipients} are allowed.`,
        `Split the recipients over several messages of at most ${limits.maxRecipients}, or ask the admin to raise maxRecipients (PUT /api/email/send-settings).`,
      );
    }
    const bytes = Buffer.byteLength(html, 'utf8');
    if (bytes > limits.maxBodyBytes) {
      throw invalid(
        `The HTML is ${bytes} bytes; at most ${limits.maxBodyBytes} are allowed.`,
        `Shorten the HTML (link to large content instead of inlining it), or ask the admin to raise maxBodyBytes (PUT /api/email/send-settings).`,
      );
    }
  }

  /** Counts a user's send against all users' hourly cap; past it, the sender's hit is given back. */
  async function countUserSend(senderKey: string): Promise<void> {
    try {
      await limiter.hit(usersHourlySendLimit, 'all');
    } catch (err) {
      await limiter.refund(hourlySendLimit, senderKey);
      if (!(err instanceof AppError)) throw err;
      throw new AppError('TOO_MANY_REQUESTS', err.message, {
        headers: err.headers,
        nextActions: `${err.nextActions} Or ask the admin to raise usersMaxPerHour (PUT /api/email/send-settings).`,
      });
    }
  }

  return {
    settings,

    async updateSettings(update: SendSettingsUpdate): Promise<SendSettingsView> {
      const current = await settings();
      await withTx(deps.sql, (tx) =>
        repo.writeSendSettings(
          tx,
          LIMIT_NAMES,
          {
            maxRecipients: update.maxRecipients ?? current.maxRecipients,
            maxBodyBytes: update.maxBodyBytes ?? current.maxBodyBytes,
            maxPerHour: update.maxPerHour ?? current.maxPerHour,
            usersMaySend: update.usersMaySend ?? current.usersMaySend,
            usersMaxPerHour: update.usersMaxPerHour ?? current.usersMaxPerHour,
            userRecipients: update.userRecipients ?? current.userRecipients,
            recipientAllowList: update.recipientAllowList
              ? [...new Set(update.recipientAllowList)]
              : current.recipientAllowList,
          },
          deps.clock.now(),
        ),
      );
      return settings();
    },

    async log(page: { limit: number; offset: number }) {
      const { records, total } = await repo.listSendRecords(deps.sql, page);
      return { data: records.map(recordView), pagination: { ...page, total } };
    },

    /** Sends one message for the caller; throws the error the caller must see. */
    async send(principal: Principal, request: SendEmailRequest): Promise<void> {
      const sender = senderOf(principal);
      const to = asList(request.to);
      const cc = asList(request.cc);
      const bcc = asList(request.bcc);
      const recipientCount = to.length + cc.length + bcc.length;
      const limits = await settings();
      if (principal.kind === 'user')
        await assertUserMaySend(findSender, principal.userId, limits, [...to, ...cc, ...bcc]);
      checkMessage(limits, recipientCount, request.html);
      if (!(await mailer.isConfigured())) throw notConfigured();

      await limiter.hit(hourlySendLimit, `${sender.kind}:${sender.id}`);
      if (sender.kind === 'user') await countUserSend(`${sender.kind}:${sender.id}`);
      const delivery = await mailer.sendHtml({
        to,
        cc,
        bcc,
        replyTo: request.replyTo,
        subject: request.subject,
        html: request.html,
      });
      if (delivery.outcome === 'not-configured') {
        await limiter.refund(hourlySendLimit, `${sender.kind}:${sender.id}`);
        if (sender.kind === 'user') await limiter.refund(usersHourlySendLimit, 'all');
        throw notConfigured();
      }
      const refused = delivery.outcome === 'refused';
      await repo.insertSendRecord(deps.sql, {
        sentAt: deps.clock.now(),
        senderKind: sender.kind,
        senderId: sender.id,
        recipientCount,
        status: refused ? 'refused' : 'accepted',
        acceptedCount: refused ? 0 : delivery.acceptedCount,
        error: refused ? delivery.reason : null,
      });
      if (refused) throw smtpRefused(delivery);
    },
  };
}
