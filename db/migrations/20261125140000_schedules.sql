-- Scheduled functions: a 5-field cron expression (in a time zone) or a seconds interval that
-- invokes a function by slug or a URL of the project's own API, and the history of its runs.
-- Servers claim due schedules with FOR UPDATE SKIP LOCKED on next_run_at and advance it in the
-- same transaction, so each due time fires once however many servers run.

CREATE SCHEMA IF NOT EXISTS schedules;

CREATE TABLE schedules.schedules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The reference platform's pg_cron job id (cronJobId, a bigint as a string on the wire).
  job_id bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text NOT NULL CHECK (length(name) BETWEEN 3 AND 255),
  cron_schedule text NOT NULL,
  time_zone text NOT NULL DEFAULT 'UTC',
  -- Exactly one target: a function of this project, or a URL of its own API.
  function_slug text,
  function_url text,
  http_method text NOT NULL CHECK (http_method IN ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
  -- Header templates as given: ${{secrets.KEY}} is resolved when a run starts, never stored.
  headers jsonb,
  body jsonb,
  is_active boolean NOT NULL DEFAULT true,
  missed_run_policy text NOT NULL DEFAULT 'skip' CHECK (missed_run_policy IN ('skip', 'run_once')),
  -- NULL: the server's SCHEDULES_RUN_TIMEOUT_MS.
  timeout_ms integer CHECK (timeout_ms > 0),
  -- The next due time (NULL while paused).
  next_run_at timestamptz,
  last_executed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((function_slug IS NULL) <> (function_url IS NULL))
);
CREATE INDEX schedules_due_idx ON schedules.schedules (next_run_at) WHERE is_active;
CREATE INDEX schedules_created_idx ON schedules.schedules (created_at DESC, id DESC);

-- One row per fired due time. 'running' rows hold a lease: a server that stops mid-run leaves
-- its row behind, and once the lease is over another server runs it again (or gives it up).
CREATE TABLE schedules.runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  schedule_id uuid NOT NULL REFERENCES schedules.schedules (id) ON DELETE CASCADE,
  due_at timestamptz NOT NULL,
  started_at timestamptz NOT NULL,
  lease_until timestamptz,
  attempt integer NOT NULL DEFAULT 1 CHECK (attempt > 0),
  status text NOT NULL CHECK (status IN ('running', 'success', 'failed', 'timed_out')),
  finished_at timestamptz,
  status_code integer,
  duration_ms integer,
  message text,
  -- The first characters of the answer's body.
  excerpt text,
  UNIQUE (schedule_id, due_at),
  CHECK ((status = 'running') = (lease_until IS NOT NULL))
);
CREATE INDEX runs_history_idx ON schedules.runs (schedule_id, started_at DESC, id DESC);
CREATE INDEX runs_lease_idx ON schedules.runs (lease_until) WHERE status = 'running';
CREATE INDEX runs_started_idx ON schedules.runs (started_at);

-- How long run history is kept; without a row the default (7 days) applies, NULL keeps it all.
CREATE TABLE schedules.config (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  retention_days integer CHECK (retention_days > 0),
  updated_at timestamptz NOT NULL
);
