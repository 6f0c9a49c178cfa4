// A small thumbnail of an image file in the bucket browser: the server scales it (a cached
// variant after the first view), read with the admin's credential so private buckets show too.
// Asked for only once its row scrolls into view, so a folder of a thousand photos does not fill
// the server's transformation queue at once (a refused one, 503, is retried with backoff).
// Decorative (the row names the file); nothing is shown while it loads or when it cannot be made.
import { Box, Image } from '@mantine/core';
import { useInViewport } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { imageApi, transformable } from './paths';
import type { StoredObject } from './types';

const SHOWN = 32;
/** Twice the shown size, for high-density screens. */
const FETCHED = SHOWN * 2;

export function ObjectThumbnail({ object }: { object: StoredObject }) {
  const api = useApi();
  const { ref, inViewport } = useInViewport();
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (inViewport) setSeen(true);
  }, [inViewport]);
  // The query caches the bytes; each mounted thumbnail makes (and revokes) its own object URL.
  const thumbnail = useQuery({
    queryKey: ['thumbnail', object.bucket, object.key, object.uploadedAt],
    enabled: seen && transformable(object.mimeType),
    staleTime: Number.POSITIVE_INFINITY,
    retry: 5,
    queryFn: async () => (await api.request(imageApi(object.bucket, object.key, FETCHED, object.uploadedAt))).blob(),
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!thumbnail.data) return undefined;
    const made = URL.createObjectURL(thumbnail.data);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [thumbnail.data]);
  return (
    <Box ref={ref} w={SHOWN} h={SHOWN} style={{ flexShrink: 0 }}>
      {url ? <Image src={url} alt="" w={SHOWN} h={SHOWN} fit="contain" radius="sm" /> : null}
    </Box>
  );
}
