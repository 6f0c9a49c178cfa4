-- Object storage: buckets, object metadata under row-level security (bytes live in the blob
-- store, named by blob_id), and the S3 gateway's access keys (secrets sealed by the keyring).

CREATE SCHEMA IF NOT EXISTS storage;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, project_admin;

CREATE TABLE storage.buckets (
  name text PRIMARY KEY CHECK (name ~ '^[a-zA-Z0-9_-]{1,63}$'),
  public boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON storage.buckets TO anon, authenticated, project_admin;

CREATE TABLE storage.objects (
  bucket text NOT NULL REFERENCES storage.buckets (name) ON DELETE CASCADE ON UPDATE CASCADE,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 1024),
  blob_id uuid NOT NULL UNIQUE,
  size bigint NOT NULL CHECK (size >= 0),
  mime_type text NOT NULL,
  etag text NOT NULL,
  uploaded_by uuid DEFAULT auth.uid(),
  uploaded_via text NOT NULL DEFAULT 'rest' CHECK (uploaded_via IN ('rest', 's3')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bucket, key)
);
CREATE INDEX objects_key_pattern ON storage.objects (bucket, key text_pattern_ops);
GRANT SELECT, INSERT, UPDATE, DELETE ON storage.objects TO anon, authenticated, project_admin;

-- Defaults the developer may replace: the admin sees everything; a signed-in user owns what
-- they uploaded; objects in public buckets are readable by every caller.
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
CREATE POLICY project_admin_all ON storage.objects FOR ALL TO project_admin USING (true) WITH CHECK (true);
CREATE POLICY owner_all ON storage.objects FOR ALL TO authenticated
  USING (uploaded_by = auth.uid()) WITH CHECK (uploaded_by = auth.uid());
CREATE POLICY public_read ON storage.objects FOR SELECT TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM storage.buckets b WHERE b.name = bucket AND b.public));

-- Blobs whose object row was replaced or deleted; removed from the blob store after commit, and
-- swept on start for any removal a crash interrupted.
CREATE TABLE storage.orphan_blobs (
  blob_id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE storage.s3_access_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  access_key_id text NOT NULL UNIQUE,
  secret_ciphertext text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);

CREATE FUNCTION storage.note_orphan_blob() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.blob_id IS DISTINCT FROM OLD.blob_id THEN
    INSERT INTO storage.orphan_blobs (blob_id) VALUES (OLD.blob_id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER objects_orphan_blob AFTER UPDATE OR DELETE ON storage.objects
  FOR EACH ROW EXECUTE FUNCTION storage.note_orphan_blob();
