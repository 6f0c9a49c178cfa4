-- Sites: the app's own front end, hosted by Plinth (see src/modules/sites, docs/sites.md).
-- deployments.runs and deployments.files keep the reference platform's names and columns, which
-- its agent tools tell agents to query; the rest is Plinth's own: the files each deployment
-- serves (assets), their bytes by SHA-1 in the blob store (blobs, with precompressed variants),
-- the one site's settings and live deployment, and its custom domains.
CREATE SCHEMA IF NOT EXISTS deployments;

CREATE TABLE deployments.runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider text NOT NULL DEFAULT 'plinth',
  provider_deployment_id text,
  status text NOT NULL DEFAULT 'WAITING'
    CHECK (status IN ('WAITING', 'UPLOADING', 'QUEUED', 'BUILDING', 'READY', 'ERROR', 'CANCELED')),
  url text,
  metadata jsonb,
  -- The build's output (stdout and stderr interleaved), capped; null when nothing was built.
  build_log text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_created_at ON deployments.runs (created_at DESC);

-- What the uploader sent (sources, or the built output itself): the reference's manifest rows.
CREATE TABLE deployments.files (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  deployment_id uuid NOT NULL REFERENCES deployments.runs (id) ON DELETE CASCADE,
  file_path text NOT NULL,
  sha text NOT NULL CHECK (sha ~ '^[a-f0-9]{40}$'),
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  uploaded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (deployment_id, file_path)
);

-- What a READY deployment serves, path by path; written once when it is published, never changed.
CREATE TABLE deployments.assets (
  deployment_id uuid NOT NULL REFERENCES deployments.runs (id) ON DELETE CASCADE,
  path text NOT NULL,
  sha text NOT NULL CHECK (sha ~ '^[a-f0-9]{40}$'),
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  content_type text NOT NULL,
  PRIMARY KEY (deployment_id, path)
);
CREATE INDEX assets_sha ON deployments.assets (sha);

-- Content-addressed bytes: one blob per SHA-1 and encoding (identity, or precompressed br/gzip).
CREATE TABLE deployments.blobs (
  sha text NOT NULL CHECK (sha ~ '^[a-f0-9]{40}$'),
  encoding text NOT NULL CHECK (encoding IN ('identity', 'br', 'gzip')),
  blob_id text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  -- Pruning forgets bytes no deployment has used for a while, never ones a new manifest counts on.
  last_used_at timestamptz NOT NULL,
  PRIMARY KEY (sha, encoding)
);
CREATE INDEX files_sha ON deployments.files (sha);

-- The project's one site: its slug ({slug}.localhost, {slug}.SITES_DOMAIN), the deployment it
-- serves (switched by one row update), the single-page-app fallback and how many deployments are kept.
CREATE TABLE deployments.site (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  slug text NOT NULL DEFAULT 'app' CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  live_deployment_id uuid REFERENCES deployments.runs (id) ON DELETE SET NULL,
  spa_fallback boolean NOT NULL DEFAULT false,
  retention integer NOT NULL DEFAULT 10 CHECK (retention BETWEEN 1 AND 1000)
);
INSERT INTO deployments.site DEFAULT VALUES;

-- Custom domains mapped to the site by the Host header (lower case, no port).
CREATE TABLE deployments.domains (
  domain text PRIMARY KEY CHECK (domain = lower(domain)),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The agent tools point agents at these two tables through admin SQL (project_admin): read only.
GRANT USAGE ON SCHEMA deployments TO project_admin;
GRANT SELECT ON deployments.runs, deployments.files TO project_admin;
