// A stored image or text file shown in a dialog, read with the admin's credential (so private
// buckets preview too). Images the server transforms come scaled to the dialog, not full size.
import { Code, Image, Modal, ScrollArea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { imageApi, objectsApi, transformable } from './paths';
import type { StoredObject } from './types';

/** Text previews stop here; the rest is left to a download. */
const TEXT_PREVIEW_BYTES = 100_000;
/** The largest side of a previewed image, in pixels (the dialog is at most this wide on a 2x screen). */
const PREVIEW_PIXELS = 1024;

const isImage = (mimeType: string) => mimeType.startsWith('image/');
const isText = (mimeType: string) => mimeType.startsWith('text/') || /json|xml|javascript|yaml/.test(mimeType);

export const previewable = (mimeType: string) => isImage(mimeType) || isText(mimeType);

type Preview = { kind: 'image'; url: string } | { kind: 'text'; text: string };

export function ObjectPreview({ object, onClose }: { object: StoredObject; onClose(): void }) {
  const api = useApi();
  const preview = useQuery({
    queryKey: ['preview', object.bucket, object.key, object.uploadedAt],
    gcTime: 0,
    queryFn: async (): Promise<Preview> => {
      const path = transformable(object.mimeType)
        ? imageApi(object.bucket, object.key, PREVIEW_PIXELS, object.uploadedAt)
        : objectsApi(object.bucket, object.key);
      const blob = await (await api.request(path)).blob();
      if (isImage(object.mimeType)) return { kind: 'image', url: URL.createObjectURL(blob) };
      return { kind: 'text', text: await blob.slice(0, TEXT_PREVIEW_BYTES).text() };
    },
  });
  const imageUrl = preview.data?.kind === 'image' ? preview.data.url : null;
  useEffect(() => (imageUrl ? () => URL.revokeObjectURL(imageUrl) : undefined), [imageUrl]);

  return (
    <Modal
      opened
      onClose={onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Preview of ${object.key}`}
      size="lg"
      centered
    >
      {preview.isPending ? <Loading what="the preview" /> : null}
      {preview.isError ? <ErrorState error={preview.error} what="the preview" /> : null}
      {preview.data?.kind === 'image' ? (
        <Image src={preview.data.url} alt={`Preview of ${object.key}`} fit="contain" mah="70vh" />
      ) : null}
      {preview.data?.kind === 'text' ? (
        <ScrollArea.Autosize mah="70vh">
          <Code block>{preview.data.text}</Code>
        </ScrollArea.Autosize>
      ) : null}
    </Modal>
  );
}
