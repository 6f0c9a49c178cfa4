-- MCP usage: one row per tool call the official MCP server reports (POST /api/usage/mcp), read
-- back by admins (GET /api/usage/mcp), newest first.

CREATE TABLE system.mcp_usage (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tool_name varchar(255) NOT NULL,
  success boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Order of arrival, newest first among calls of the same instant.
  seq bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX mcp_usage_newest ON system.mcp_usage (success, created_at DESC, seq DESC);
