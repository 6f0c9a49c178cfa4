-- A refresh joins auth.rotate_refresh_token(…) to auth.sessions (sessions.repo.ts). The function
-- returns one row, but PostgreSQL assumes 1000 for a set-returning function, so it hashed the
-- whole of auth.sessions on every refresh: 20 ms at 31,000 sessions, 50 ms at 91,000 (EXPLAIN
-- ANALYZE; found by bench:token-cache, whose rounds add sessions). Told it returns one row, it
-- reads the one session by its primary key (0.3 ms at 91,000).
ALTER FUNCTION auth.rotate_refresh_token(bytea, bytea, timestamptz, interval, interval, boolean) ROWS 1;
