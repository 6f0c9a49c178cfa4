-- Users' custom emails (POST /api/email/send-raw) are off until the admin turns them on; the admin
-- may restrict their recipients to the sender's own address or to an allow-list. The hourly cap of
-- all users together is a rate limit like the per-sender one ('email-send-raw:users').
ALTER TABLE email.send_settings
  ADD COLUMN users_may_send boolean NOT NULL DEFAULT false,
  ADD COLUMN user_recipients text NOT NULL DEFAULT 'any' CHECK (user_recipients IN ('any', 'self', 'allow-list')),
  ADD COLUMN recipient_allow_list text[] NOT NULL DEFAULT '{}';
