-- Realtime retention by default: stored messages expire after the server's default
-- (REALTIME_MESSAGE_RETENTION_DAYS) until an admin sets a retention of their own; NULL set by an
-- admin still keeps messages forever. `retention_explicit` tells the two NULLs apart.
ALTER TABLE realtime.config ADD COLUMN retention_explicit boolean NOT NULL DEFAULT false;
UPDATE realtime.config SET retention_explicit = true WHERE retention_days IS NOT NULL;
