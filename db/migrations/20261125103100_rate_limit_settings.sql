-- The admin's overrides of the public routes' rate limits (PUT /api/auth/rate-limits). A limit
-- without a row uses its default from the code; every check reads this table in the same
-- statement that counts the hit, so a change applies at once on every server.
CREATE TABLE system.rate_limit_settings (
  name text PRIMARY KEY,
  max_hits integer NOT NULL CHECK (max_hits > 0),
  window_seconds integer NOT NULL CHECK (window_seconds > 0),
  updated_at timestamptz NOT NULL
);
