-- Image transformations (issue 37): the variant cache. A variant is the output of one set of
-- transformation parameters on one version of an object (its blob); its bytes are a blob of
-- their own. A variant goes with its source: when the object's blob is replaced, or the object
-- deleted (or its bucket), its variants' rows go and their blobs are noted as orphans, which the
-- storage service removes after commit as it does for replaced objects. No request role may read
-- or write this table: the server reads it only after the object's own access check passed.

CREATE TABLE storage.image_variants (
  source_blob_id uuid NOT NULL REFERENCES storage.objects (blob_id) ON DELETE CASCADE,
  -- The resolved parameters (width, height, fit, quality, output format, frames), canonical text.
  params text NOT NULL CHECK (length(params) <= 200),
  blob_id uuid NOT NULL UNIQUE,
  size bigint NOT NULL CHECK (size >= 0),
  mime_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Touched at most once a minute by a hit: the LRU order of eviction.
  last_used_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_blob_id, params)
);
CREATE INDEX image_variants_last_used ON storage.image_variants (last_used_at);
REVOKE ALL ON storage.image_variants FROM PUBLIC;

-- A variant's bytes go when its row goes (eviction, a replaced or deleted source).
CREATE FUNCTION storage.note_orphan_variant() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
BEGIN
  INSERT INTO storage.orphan_blobs (blob_id) VALUES (OLD.blob_id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER image_variants_orphan_blob AFTER DELETE ON storage.image_variants
  FOR EACH ROW EXECUTE FUNCTION storage.note_orphan_variant();

-- An object whose bytes are replaced loses the variants of its old bytes before the row changes
-- (the foreign key would refuse the new blob_id while they still point at the old one). A move
-- keeps the blob, and so its variants.
CREATE FUNCTION storage.drop_variants_of_replaced_blob() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = storage, pg_temp AS $$
BEGIN
  IF NEW.blob_id IS DISTINCT FROM OLD.blob_id THEN
    DELETE FROM storage.image_variants WHERE source_blob_id = OLD.blob_id;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER objects_drop_image_variants BEFORE UPDATE OF blob_id ON storage.objects
  FOR EACH ROW EXECUTE FUNCTION storage.drop_variants_of_replaced_blob();
