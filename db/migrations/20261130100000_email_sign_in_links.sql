-- Sign-in links an admin generates or an invitation sends (Supabase's generate_link and invites,
-- clicked at GET /auth/v1/verify): each flow's link token lives beside its 6-digit code, so the
-- admin can hand out either one; both open a session once.
ALTER TABLE auth.email_otps DROP CONSTRAINT email_otps_purpose_check;
ALTER TABLE auth.email_otps ADD CONSTRAINT email_otps_purpose_check CHECK (purpose IN (
  'SIGN_IN', 'VERIFY_EMAIL', 'RESET_PASSWORD', 'RESET_TOKEN',
  'SIGN_IN_LINK', 'SIGN_UP_LINK', 'INVITE_LINK', 'RECOVERY_LINK'));
