-- Logs and audit: one table, partitioned by kind (LIST on source) and each kind by day (RANGE on
-- ts). The server's log writer creates the daily partitions ahead and drops a kind's partitions
-- once they are older than that kind's retention, so old logs go by DROP TABLE, never by DELETE,
-- and a search bounded in time reads only the days it names.

CREATE SCHEMA IF NOT EXISTS logs;

CREATE TABLE logs.entries (
  id uuid NOT NULL,
  ts timestamptz NOT NULL,
  -- Order of arrival, newest first among entries of the same millisecond.
  seq bigserial NOT NULL,
  -- requests | functions | audit | errors
  source text NOT NULL,
  level text NOT NULL,
  method text,
  -- The route pattern (e.g. /api/database/records/:table), not the path with its values.
  route text,
  status integer,
  duration_ms real,
  -- anon | user | admin | api-key | none
  principal text,
  user_id text,
  ip text,
  request_id text,
  -- The function of a functions entry.
  slug text,
  message text NOT NULL,
  details jsonb
) PARTITION BY LIST (source);

CREATE TABLE logs.entries_requests PARTITION OF logs.entries FOR VALUES IN ('requests') PARTITION BY RANGE (ts);
CREATE TABLE logs.entries_functions PARTITION OF logs.entries FOR VALUES IN ('functions') PARTITION BY RANGE (ts);
CREATE TABLE logs.entries_audit PARTITION OF logs.entries FOR VALUES IN ('audit') PARTITION BY RANGE (ts);
CREATE TABLE logs.entries_errors PARTITION OF logs.entries FOR VALUES IN ('errors') PARTITION BY RANGE (ts);

-- Created on every partition: newest first within a time range, and a request's entries. Other
-- filters (user, status, text) read a time range; each index is paid for on every insert.
CREATE INDEX entries_ts_idx ON logs.entries (ts DESC);
CREATE INDEX entries_request_id_idx ON logs.entries (request_id) WHERE request_id IS NOT NULL;

-- Days each kind is kept (an admin changes them through PATCH /api/logs/retention).
CREATE TABLE logs.retention (
  source text PRIMARY KEY CHECK (source IN ('requests', 'functions', 'audit', 'errors')),
  days integer NOT NULL CHECK (days BETWEEN 1 AND 3650)
);
INSERT INTO logs.retention (source, days) VALUES ('requests', 7), ('functions', 14), ('audit', 90), ('errors', 30);
