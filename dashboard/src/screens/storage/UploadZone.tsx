// Uploads into the current folder: files chosen in the file input or dropped on the zone (native
// drag-and-drop events), each under the folder's prefix with a progress bar of its bytes sent:
// a plain PUT up to RESUMABLE_FROM_BYTES, above it a resumable (tus) upload in chunks that survives
// a dropped connection and, chosen again after a failure, goes on where it stopped.
import { Alert, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { type DragEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { objectsApi, type Place } from './paths';

interface UploadState {
  id: number;
  name: string;
  /** 0 to 100. */
  percent: number;
  error: string | null;
}

/** Files of this size and above go through the resumable (tus) endpoint. */
export const RESUMABLE_FROM_BYTES = 6 * 1024 * 1024;
/** Uploads running at once; the rest wait their turn. */
const PARALLEL = 3;
let nextUploadId = 0;

export function UploadZone({ place, onUploaded }: { place: Place; onUploaded(): void }) {
  const api = useApi();
  const [uploads, setUploads] = useState<UploadState[]>([]);
  const [dragging, setDragging] = useState(false);
  const update = (id: number, change: Partial<UploadState>) =>
    setUploads((all) => all.map((u) => (u.id === id ? { ...u, ...change } : u)));

  const uploadOne = async (file: File, id: number) => {
    const progress = (fraction: number) => update(id, { percent: Math.round(fraction * 100) });
    const objectName = `${place.prefix}${file.name}`;
    try {
      if (file.size >= RESUMABLE_FROM_BYTES) {
        const contentType = file.type || 'application/octet-stream';
        await api.uploadResumable(file, { bucketName: place.bucket, objectName, contentType }, progress);
      } else await api.upload('PUT', objectsApi(place.bucket, objectName), file, progress);
      update(id, { percent: 100 });
    } catch (err) {
      update(id, { error: err instanceof Error ? err.message : String(err) });
    }
  };

  const start = async (files: File[]) => {
    if (files.length === 0) return;
    const queued = files.map((file) => ({ file, id: nextUploadId++ }));
    setUploads((all) => [...all, ...queued.map(({ file, id }) => ({ id, name: file.name, percent: 0, error: null }))]);
    const waiting = [...queued];
    const worker = async () => {
      for (let next = waiting.shift(); next; next = waiting.shift()) await uploadOne(next.file, next.id);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queued.length) }, worker));
    onUploaded();
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void start([...event.dataTransfer.files]);
  };
  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };

  const done = uploads.filter((u) => u.percent === 100).length;
  return (
    <Stack gap="xs">
      <Paper
        withBorder
        p="lg"
        aria-label="Drop files to upload"
        role="region"
        onDragOver={onDragOver}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        style={{
          borderStyle: 'dashed',
          borderWidth: 2,
          background: dragging ? 'var(--mantine-color-default-hover)' : undefined,
        }}
      >
        <Stack gap={6} align="center">
          <Text fw={500}>Drop files here to upload into {place.prefix || 'the bucket root'}</Text>
          <Text size="sm">or</Text>
          <input
            type="file"
            aria-label="Choose files"
            multiple
            onChange={(event) => {
              void start([...(event.currentTarget.files ?? [])]);
              event.currentTarget.value = '';
            }}
          />
        </Stack>
      </Paper>
      {uploads.length > 0 ? (
        <Stack gap={6}>
          <Text size="sm" role="status" aria-live="polite">
            Uploaded {done} of {uploads.length} files
          </Text>
          <Stack gap={6} aria-label="Uploads" role="list">
            {uploads.map((u) => (
              <Group key={u.id} role="listitem" gap="sm" wrap="nowrap">
                <Text size="sm" style={{ flex: '0 1 40%', overflowWrap: 'anywhere' }}>
                  {u.name}
                </Text>
                <Progress.Root size="lg" style={{ flex: 1 }}>
                  <Progress.Section
                    value={u.percent}
                    color={u.error ? 'red' : u.percent === 100 ? 'teal' : undefined}
                    aria-label={`Upload of ${u.name}`}
                  />
                </Progress.Root>
                <Text size="sm" w="3.5rem" ta="right">
                  {u.percent} %
                </Text>
              </Group>
            ))}
          </Stack>
          {uploads
            .filter((u) => u.error)
            .map((u) => (
              <Alert key={u.id} color="red" role="alert" title={`${u.name} was not uploaded`}>
                {u.error}
              </Alert>
            ))}
        </Stack>
      ) : null}
    </Stack>
  );
}
