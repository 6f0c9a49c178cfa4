-- Direct uploads to the S3 backend (a presigned browser POST): each one noted with the blob id
-- its bytes go to until the client confirms it (the object row is written and the note claimed
-- in one transaction) or it lapses (the sweep removes note and bytes). Multipart uploads keep
-- the tags their object gets on completion.
CREATE TABLE storage.direct_uploads (
  blob_id uuid PRIMARY KEY,
  bucket text NOT NULL,
  key text NOT NULL,
  requested_by text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX direct_uploads_target ON storage.direct_uploads (bucket, key, requested_by);

-- Request roles write object rows; this lets their transaction claim the direct upload it
-- turns into an object (false when another confirmation claimed it first).
CREATE FUNCTION storage.claim_direct_upload(id uuid) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
  WITH claimed AS (DELETE FROM storage.direct_uploads WHERE blob_id = id RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM claimed)
$$;
GRANT EXECUTE ON FUNCTION storage.claim_direct_upload(uuid) TO anon, authenticated, project_admin;

ALTER TABLE storage.s3_multipart_uploads ADD COLUMN tags jsonb NOT NULL DEFAULT '[]';
