// What an admin can do with one stored file: preview it (images and text), download it, get a
// signed URL to copy, and delete it (confirmed).
import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { nameOf } from './folders';
import { ObjectPreview, previewable } from './ObjectPreview';
import { objectsApi } from './paths';
import { SignedUrlDialog } from './SignedUrlDialog';
import type { StoredObject } from './types';

export function ObjectActions({ object, onDeleted }: { object: StoredObject; onDeleted(): void }) {
  const api = useApi();
  const [open, setOpen] = useState<'preview' | 'signed' | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const name = nameOf(object.key);

  const download = async () => {
    setFailure(null);
    try {
      const blob = await (await api.request(objectsApi(object.bucket, object.key))).blob();
      const href = URL.createObjectURL(blob);
      Object.assign(document.createElement('a'), { href, download: name }).click();
      // The click hands the blob to the download; it is released once that has started.
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
    } catch (err) {
      setFailure(`Download failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return (
    <Group gap={6} justify="flex-end" wrap="wrap">
      {previewable(object.mimeType) ? (
        <Button size="xs" variant="default" aria-label={`Preview ${name}`} onClick={() => setOpen('preview')}>
          Preview
        </Button>
      ) : null}
      <Button size="xs" variant="default" aria-label={`Download ${name}`} onClick={download}>
        Download
      </Button>
      <Button size="xs" variant="default" aria-label={`Signed URL of ${name}`} onClick={() => setOpen('signed')}>
        Signed URL
      </Button>
      <ConfirmButton
        size="xs"
        ariaLabel={`Delete ${name}`}
        title={`Delete ${name}?`}
        message={`${object.key} is deleted from ${object.bucket}. This cannot be undone.`}
        confirmLabel="Delete file"
        onConfirm={() => api.json(objectsApi(object.bucket, object.key), { method: 'DELETE' }).then(onDeleted)}
        label="Delete"
      />
      {failure ? (
        <Text size="xs" c="red" role="alert">
          {failure}
        </Text>
      ) : null}
      {open === 'preview' ? <ObjectPreview object={object} onClose={() => setOpen(null)} /> : null}
      {open === 'signed' ? <SignedUrlDialog object={object} onClose={() => setOpen(null)} /> : null}
    </Group>
  );
}
