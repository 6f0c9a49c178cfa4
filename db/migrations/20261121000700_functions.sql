-- Serverless functions: their code (the source of truth the Deno runtime is deployed from) and a
-- version that moves on every change, so runtimes cache compiled code by (slug, version).

CREATE SCHEMA IF NOT EXISTS functions;

CREATE TABLE functions.definitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-zA-Z0-9_-]{1,255}$' AND lower(slug) <> 'health'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  description text,
  code text NOT NULL CHECK (length(code) > 0),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'error')),
  verify_jwt boolean NOT NULL DEFAULT true,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deployed_at timestamptz
);

-- Every change tells every server (payload: the slug), so each redeploys to its own runtime.
CREATE FUNCTION functions.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('plinth_functions', coalesce(NEW.slug, OLD.slug));
  RETURN NULL;
END $$;

CREATE TRIGGER definitions_notify AFTER INSERT OR UPDATE OR DELETE ON functions.definitions
  FOR EACH ROW EXECUTE FUNCTION functions.notify_change();
