-- Blobs being written: noted before their bytes go to the blob store and claimed in the same
-- transaction that writes their row. A note left over (a crash between the two) names bytes
-- without a row; the sweep on start removes them once they are an hour old.
CREATE TABLE storage.pending_blobs (
  blob_id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Request roles write object rows; this lets their transaction claim the blob it wrote.
CREATE FUNCTION storage.claim_blob(id uuid) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
  DELETE FROM storage.pending_blobs WHERE blob_id = id
$$;
GRANT EXECUTE ON FUNCTION storage.claim_blob(uuid) TO anon, authenticated, project_admin;
