-- State of the S3 gateway: multipart uploads in progress (each part a blob of its own until
-- completion), bucket CORS rules and object tags as the S3 API sets them.

CREATE TABLE storage.s3_multipart_uploads (
  upload_id uuid PRIMARY KEY,
  bucket text NOT NULL REFERENCES storage.buckets (name) ON DELETE CASCADE ON UPDATE CASCADE,
  key text NOT NULL,
  mime_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE storage.s3_multipart_parts (
  upload_id uuid NOT NULL REFERENCES storage.s3_multipart_uploads (upload_id) ON DELETE CASCADE,
  part_number int NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
  blob_id uuid NOT NULL UNIQUE,
  size bigint NOT NULL,
  etag text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (upload_id, part_number)
);
-- Replaced, completed and aborted parts leave their blobs to the same sweep as objects.
CREATE TRIGGER parts_orphan_blob AFTER UPDATE OR DELETE ON storage.s3_multipart_parts
  FOR EACH ROW EXECUTE FUNCTION storage.note_orphan_blob();

ALTER TABLE storage.buckets ADD COLUMN s3_cors text;
ALTER TABLE storage.objects ADD COLUMN tags jsonb NOT NULL DEFAULT '[]';
