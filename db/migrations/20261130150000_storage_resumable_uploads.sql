-- Resumable uploads (tus 1.0): one row per upload not yet complete. The id is the upload's URL
-- id and the blob id its bytes become; the row binds the upload to its creator, holds what the
-- object row will say, and counts its declared length in the storage quota until it completes
-- (the row is deleted in the transaction that writes the object row) or expires (swept).
CREATE TABLE storage.resumable_uploads (
  id uuid PRIMARY KEY,
  bucket text NOT NULL,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 1024),
  upload_length bigint NOT NULL CHECK (upload_length >= 0),
  mime_type text NOT NULL,
  cache_control text,
  upsert boolean NOT NULL,
  -- 'user:<id>', 'anon', 'api-key' or 'admin:<subject>': only this caller may touch the upload.
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX resumable_uploads_expires_at ON storage.resumable_uploads (expires_at);

-- Request roles complete uploads in their own scope; this lets that transaction claim (delete)
-- the upload's row, so the object appears exactly once and the row stops counting in the quota.
CREATE FUNCTION storage.claim_resumable_upload(upload_id uuid) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
  WITH claimed AS (DELETE FROM storage.resumable_uploads WHERE id = upload_id RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM claimed)
$$;
REVOKE EXECUTE ON FUNCTION storage.claim_resumable_upload(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storage.claim_resumable_upload(uuid) TO anon, authenticated, project_admin;

-- The storage quota's usage: every object's bytes plus the declared length of every upload in
-- progress. Callable from a request's scope (row-level security would hide others' objects).
CREATE FUNCTION storage.used_bytes(at timestamptz) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = storage, pg_temp AS $$
  SELECT (coalesce((SELECT sum(size) FROM storage.objects), 0)
    + coalesce((SELECT sum(upload_length) FROM storage.resumable_uploads WHERE expires_at > at), 0))::bigint
$$;
REVOKE EXECUTE ON FUNCTION storage.used_bytes(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storage.used_bytes(timestamptz) TO anon, authenticated, project_admin;
