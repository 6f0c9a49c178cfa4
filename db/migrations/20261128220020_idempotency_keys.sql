-- Idempotency-Key outcomes: the first answer to a records insert or a function call, kept per
-- caller, route and key until it expires (a day), so that a retry gets that answer instead of
-- writing again. A records insert writes its row in the same transaction as the insert itself.
-- status NULL: a function call claimed the key and has not answered yet.

CREATE TABLE system.idempotency_keys (
  principal text NOT NULL,
  route text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  status smallint,
  headers jsonb NOT NULL DEFAULT '{}',
  body bytea,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (principal, route, key)
);

CREATE INDEX idempotency_keys_expiry ON system.idempotency_keys (expires_at);
