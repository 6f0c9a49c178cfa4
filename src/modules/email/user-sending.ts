// What a signed-in user must satisfy before POST /api/email/send-raw sends for them: the admin
// turned user sending on, the user's own address is verified, and every recipient is allowed.
import { AppError } from '../../core/errors.js';
import type { SendSettingsView } from './send.schemas.js';

/** The sender's own address and whether it is verified (the auth module answers, through app.ts). */
// An anonymous user has no address (email null) and so may never send.
export type FindSender = (userId: string) => Promise<{ email: string | null; emailVerified: boolean } | undefined>;

const SETTINGS_ROUTE = 'PUT /api/email/send-settings';

/** Throws the 403 that says why this user may not send this message, if any. */
export async function assertUserMaySend(
  findSender: FindSender,
  userId: string,
  settings: SendSettingsView,
  recipients: string[],
): Promise<void> {
  if (!settings.usersMaySend) {
    // The user's credential lacks this permission (as the authorization matrix names a 403).
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'Sending emails is turned off for users of this project.', {
      nextActions: `Send from your server with the API key, or ask the admin to turn user sending on (${SETTINGS_ROUTE} {"usersMaySend": true}).`,
    });
  }
  const user = await findSender(userId);
  if (!user?.emailVerified || !user.email) {
    throw new AppError('FORBIDDEN', 'Verify your email address before sending emails.', {
      nextActions:
        'Request a code with POST /api/auth/email/send-verification, then confirm it with POST /api/auth/email/verify.',
    });
  }
  const own = user.email.toLowerCase();
  const refused = recipients.filter((r) => !recipientAllowed(settings, own, r));
  if (refused.length === 0) return;
  const rule =
    settings.userRecipients === 'self'
      ? 'users may only send to their own address'
      : "users may only send to the admin's recipient allow-list";
  throw new AppError('FORBIDDEN', `On this project ${rule}; not allowed: ${refused.join(', ')}.`, {
    nextActions: `Remove the recipients named, or ask the admin to allow them (${SETTINGS_ROUTE} userRecipients, recipientAllowList).`,
  });
}

function recipientAllowed(settings: SendSettingsView, own: string, recipient: string): boolean {
  if (settings.userRecipients === 'any') return true;
  if (recipient === own) return true;
  if (settings.userRecipients === 'self') return false;
  const domain = recipient.slice(recipient.lastIndexOf('@'));
  return settings.recipientAllowList.includes(recipient) || settings.recipientAllowList.includes(domain);
}
