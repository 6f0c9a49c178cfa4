-- The storage settings the admin changes at run time (one row): the largest object, in MB,
-- overriding STORAGE_MAX_FILE_SIZE_BYTES while set.
CREATE TABLE storage.config (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  max_file_size_mb int CHECK (max_file_size_mb BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO storage.config DEFAULT VALUES;
