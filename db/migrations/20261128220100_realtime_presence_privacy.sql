-- Presence privacy: anon-key sockets see signed-in members under a per-channel pseudonym, not their
-- user id, unless the channel opts in (presence_user_ids = true, set by an admin in SQL).
ALTER TABLE realtime.channels ADD COLUMN presence_user_ids boolean NOT NULL DEFAULT false;
