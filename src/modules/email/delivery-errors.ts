// The errors a caller sees when an HTML email could not go out: no SMTP configured, or the SMTP
// server refused it (or could not be reached). Shared by custom sends and the admin's test email.
import { AppError } from '../../core/errors.js';

export function notConfigured(): AppError {
  return new AppError('EMAIL_PROVIDER_NOT_CONFIGURED', 'No email provider is configured.', {
    nextActions:
      'The admin must configure and enable SMTP (PUT /api/auth/smtp-config or the SMTP_* environment variables), then retry.',
  });
}

export function smtpRefused(delivery: { reason: string; connectionFailed: boolean }): AppError {
  return new AppError(
    delivery.connectionFailed ? 'EMAIL_SMTP_CONNECTION_FAILED' : 'EMAIL_SMTP_SEND_FAILED',
    `Failed to send email via SMTP: ${delivery.reason}`,
    {
      nextActions:
        'Retry later; if it keeps failing, the admin should check the SMTP settings (GET /api/auth/smtp-config) and the recipients.',
    },
  );
}
