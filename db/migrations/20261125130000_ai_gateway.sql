-- The AI gateway's guards: the admin's settings (one row) and the usage counters per caller, per
-- UTC day and per model, which the daily token budgets are checked against.

-- allow_anon: whether anon-key callers may use the gateway. Budgets are tokens (in + out) per UTC
-- day; NULL is no budget. allowed_models empty: every model is allowed.
CREATE TABLE system.ai_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  allow_anon boolean NOT NULL DEFAULT false,
  user_daily_token_budget bigint CHECK (user_daily_token_budget >= 0),
  project_daily_token_budget bigint CHECK (project_daily_token_budget >= 0),
  allowed_models text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz
);
INSERT INTO system.ai_settings (id) VALUES (true);

-- subject: the user's id, 'anon' for every anon-key caller, 'api-key', or the admin's subject.
CREATE TABLE system.ai_usage (
  day date NOT NULL,
  subject text NOT NULL,
  subject_kind text NOT NULL CHECK (subject_kind IN ('user', 'anon', 'admin')),
  model text NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (day, subject, model)
);
CREATE INDEX ai_usage_subject_day_idx ON system.ai_usage (subject, day);
