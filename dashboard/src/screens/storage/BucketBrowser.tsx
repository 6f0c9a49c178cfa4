// One bucket as folders: breadcrumbs to the bucket's root, the sub-folders and files of the
// current prefix (keys split at "/") with thumbnails of images, and an upload zone that puts
// files under that prefix.
import { Breadcrumbs, Group, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { folderView, nameOf } from './folders';
import { NewFolderForm } from './NewFolderForm';
import { ObjectActions } from './ObjectActions';
import { ObjectThumbnail } from './ObjectThumbnail';
import { browsePath, objectsApi, type Place } from './paths';
import type { ObjectPage } from './types';
import { UploadZone } from './UploadZone';
import { nextSteps } from '../../ui/next-steps';

/** Objects read per folder: the listing is flat, so folders come from the keys seen. */
const LIST_LIMIT = 1000;

const sizeOf = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

function Crumbs({ place }: { place: Place }) {
  const segments = place.prefix.split('/').filter(Boolean);
  const prefixes = segments.map((_, i) => `${segments.slice(0, i + 1).join('/')}/`);
  return (
    <Breadcrumbs component="nav" aria-label="Folder path" separatorMargin={4} style={{ flexWrap: 'wrap' }}>
      <Link to="/storage">Buckets</Link>
      <Link to={browsePath({ bucket: place.bucket, prefix: '' })}>{place.bucket}</Link>
      {prefixes.map((prefix) => (
        <Link key={prefix} to={browsePath({ bucket: place.bucket, prefix })}>
          {nameOf(prefix)}
        </Link>
      ))}
    </Breadcrumbs>
  );
}

export default function BucketBrowser({ place }: { place: Place }) {
  const api = useApi();
  const queries = useQueryClient();
  const queryKey = ['objects', place.bucket, place.prefix];
  const listing = useQuery({
    queryKey,
    queryFn: () => {
      const query = new URLSearchParams({ prefix: place.prefix, limit: String(LIST_LIMIT) });
      return api.json<ObjectPage>(`${objectsApi(place.bucket)}?${query}`);
    },
  });
  const refresh = () => queries.invalidateQueries({ queryKey: ['objects', place.bucket] });
  const view = listing.data ? folderView(listing.data.data, place.prefix) : null;

  return (
    <Stack>
      <Title order={1} size="h2">
        Bucket {place.bucket}
      </Title>
      <Crumbs place={place} />
      <NewFolderForm place={place} />
      <UploadZone place={place} onUploaded={refresh} />
      {listing.isPending ? <Loading what="files" /> : null}
      {listing.isError ? <ErrorState error={listing.error} what="files" /> : null}
      {view && view.folders.length === 0 && view.files.length === 0 ? (
        <EmptyState title="This folder is empty" next={nextSteps.objects(place.bucket, place.prefix)}>
          Upload files above, with the CLI or from your app; a "/" in a file's key makes folders.
        </EmptyState>
      ) : null}
      {listing.data && listing.data.pagination.total > LIST_LIMIT ? (
        <Text size="sm">
          Showing folders and files among the first {LIST_LIMIT} of {listing.data.pagination.total} keys.
        </Text>
      ) : null}
      {view && (view.folders.length > 0 || view.files.length > 0) ? (
        <Table.ScrollContainer minWidth={340}>
          <Table striped highlightOnHover aria-label={`Files in ${place.prefix || place.bucket}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th ta="right">Size</Table.Th>
                <Table.Th visibleFrom="sm">Type</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {view.folders.map((prefix) => (
                <Table.Tr key={prefix}>
                  <Table.Td>
                    <Link to={browsePath({ bucket: place.bucket, prefix })}>{`${nameOf(prefix)}/`}</Link>
                  </Table.Td>
                  <Table.Td ta="right">—</Table.Td>
                  <Table.Td visibleFrom="sm">folder</Table.Td>
                  <Table.Td />
                </Table.Tr>
              ))}
              {view.files.map((file) => (
                <Table.Tr key={file.key}>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <ObjectThumbnail object={file} />
                      <Text size="sm">{nameOf(file.key)}</Text>
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{sizeOf(file.size)}</Table.Td>
                  <Table.Td visibleFrom="sm">{file.mimeType}</Table.Td>
                  <Table.Td>
                    <ObjectActions object={file} onDeleted={refresh} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
    </Stack>
  );
}
