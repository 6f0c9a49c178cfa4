-- AI token spend per UTC day and scope ('project', or 'subject:' + the caller's subject), reserved
-- before each upstream call (the worst case, refused in the same statement when it would pass the
-- budget) and lowered to what the call really cost once it ends. Budgets are checked against it.
CREATE TABLE system.ai_spend (
  day date NOT NULL,
  scope text NOT NULL,
  tokens bigint NOT NULL DEFAULT 0 CHECK (tokens >= 0),
  PRIMARY KEY (day, scope)
);

-- Spend already counted today stays counted: the budgets keep holding across the upgrade.
INSERT INTO system.ai_spend (day, scope, tokens)
SELECT day, 'subject:' || subject, sum(input_tokens + output_tokens) FROM system.ai_usage GROUP BY day, subject
UNION ALL
SELECT day, 'project', sum(input_tokens + output_tokens) FROM system.ai_usage GROUP BY day;
