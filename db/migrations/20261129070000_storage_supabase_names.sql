-- Supabase's names on storage's one store, so policies written for Supabase run unchanged on
-- every storage route (Plinth's /api/storage, its S3 gateway and /storage/v1): storage.objects
-- gains bucket_id, name, owner, owner_id, metadata (generated from Plinth's own columns) and a
-- stable id; storage.buckets gains id (always equal to name) and Supabase's bucket settings;
-- storage.foldername/filename/extension split a name as Supabase's do.

-- What a Supabase upload sets as Cache-Control; served back on download.
ALTER TABLE storage.objects ADD COLUMN cache_control text;

CREATE FUNCTION storage.object_metadata(size bigint, mime_type text, etag text, cache_control text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_build_object(
    'size', size, 'mimetype', mime_type, 'eTag', '"' || etag || '"',
    'cacheControl', coalesce(cache_control, 'no-cache'), 'contentLength', size, 'httpStatusCode', 200)
$$;

ALTER TABLE storage.objects
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN bucket_id text GENERATED ALWAYS AS (bucket) STORED,
  ADD COLUMN name text GENERATED ALWAYS AS (key) STORED,
  ADD COLUMN owner uuid GENERATED ALWAYS AS (uploaded_by) STORED,
  ADD COLUMN owner_id text GENERATED ALWAYS AS (uploaded_by::text) STORED,
  ADD COLUMN metadata jsonb GENERATED ALWAYS AS (storage.object_metadata(size, mime_type, etag, cache_control)) STORED;
ALTER TABLE storage.objects ADD CONSTRAINT objects_id_unique UNIQUE (id);

-- Buckets: id is the name (Supabase's clients send both, equal); a migration written for
-- Supabase may insert either. Size and type limits apply to uploads on every route.
ALTER TABLE storage.buckets
  ADD COLUMN id text,
  ADD COLUMN owner uuid DEFAULT auth.uid(),
  ADD COLUMN file_size_limit bigint CHECK (file_size_limit > 0),
  ADD COLUMN allowed_mime_types text[],
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE storage.buckets SET id = name;
ALTER TABLE storage.buckets ALTER COLUMN id SET NOT NULL;
ALTER TABLE storage.buckets ADD CONSTRAINT buckets_id_is_name CHECK (id = name);
ALTER TABLE storage.buckets ADD CONSTRAINT buckets_id_unique UNIQUE (id);

CREATE FUNCTION storage.bucket_id_is_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.name IS DISTINCT FROM OLD.name AND NEW.id IS NOT DISTINCT FROM OLD.id THEN
    NEW.id := NEW.name;
  ELSIF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id AND NEW.name IS NOT DISTINCT FROM OLD.name THEN
    NEW.name := NEW.id;
  END IF;
  NEW.name := coalesce(NEW.name, NEW.id);
  NEW.id := coalesce(NEW.id, NEW.name);
  RETURN NEW;
END
$$;
CREATE TRIGGER buckets_id_is_name BEFORE INSERT OR UPDATE ON storage.buckets
  FOR EACH ROW EXECUTE FUNCTION storage.bucket_id_is_name();

-- 'a/b/c.png' → {a,b}; 'c.png' → {}.
CREATE FUNCTION storage.foldername(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (string_to_array(name, '/'))[1:cardinality(string_to_array(name, '/')) - 1]
$$;

-- 'a/b/c.png' → 'c.png'.
CREATE FUNCTION storage.filename(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$$;

-- 'a/b/c.tar.gz' → 'gz'; a name without a dot is its own extension, as in Supabase.
CREATE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT reverse(split_part(reverse(storage.filename(name)), '.', 1))
$$;

GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text),
  storage.object_metadata(bigint, text, text, text) TO anon, authenticated, project_admin;
