// The buckets of the project with their objects and bytes: create one (public or private), flip a
// bucket's visibility, open it in the browser, and delete it with its objects (confirmed).
import { Stack, Switch, Table, Title, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { StatusBadge } from '../../ui/StatusBadge';
import { Link } from '../../shell/Link';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { formatBytes } from '../../ui/format';
import type { SizesInsights } from '../overview/insights-types';
import { CreateBucketForm } from './CreateBucketForm';
import { browsePath } from './paths';
import type { Bucket } from './types';
import { nextSteps } from '../../ui/next-steps';

export default function BucketsList() {
  const api = useApi();
  const queries = useQueryClient();
  const buckets = useQuery({ queryKey: ['buckets'], queryFn: () => api.json<Bucket[]>('/api/storage/buckets') });
  const sizes = useQuery({
    queryKey: ['insights', 'sizes', 'hour'],
    queryFn: () => api.json<SizesInsights>('/api/insights/sizes?range=hour'),
  });
  const usage = new Map((sizes.data?.buckets ?? []).map((b) => [b.bucket, b]));
  const refresh = () => queries.invalidateQueries({ queryKey: ['buckets'] });

  const visibility = useMutation({
    mutationFn: ({ name, isPublic }: { name: string; isPublic: boolean }) =>
      api.json(`/api/storage/buckets/${encodeURIComponent(name)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ isPublic }),
      }),
    onSettled: refresh,
  });
  const remove = (name: string) =>
    api.json(`/api/storage/buckets/${encodeURIComponent(name)}`, { method: 'DELETE' }).then(refresh);

  return (
    <Stack>
      <Title order={1} size="h2">
        Storage
      </Title>
      <CreateBucketForm onCreated={refresh} />
      {visibility.isError ? <ErrorState error={visibility.error} what="the bucket's visibility" /> : null}
      {buckets.isPending ? <Loading what="buckets" /> : null}
      {buckets.isError ? <ErrorState error={buckets.error} what="buckets" /> : null}
      {buckets.data?.length === 0 ? (
        <EmptyState title="No buckets yet" next={nextSteps.buckets()}>
          Create one above, or with the CLI; then upload files into it.
        </EmptyState>
      ) : null}
      {buckets.data?.length ? (
        <Table.ScrollContainer minWidth={360}>
          <Table striped highlightOnHover aria-label="Buckets">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Visibility</Table.Th>
                <Table.Th ta="right">Objects</Table.Th>
                <Table.Th ta="right">Size</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {buckets.data.map((bucket) => (
                <Table.Tr key={bucket.name}>
                  <Table.Td>
                    <Link to={browsePath({ bucket: bucket.name, prefix: '' })}>{bucket.name}</Link>
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      checked={bucket.public}
                      disabled={visibility.isPending}
                      aria-label={`Public: ${bucket.name}`}
                      label={
                        <StatusBadge tone={bucket.public ? 'good' : 'neutral'}>
                          {bucket.public ? 'Public' : 'Private'}
                        </StatusBadge>
                      }
                      onChange={(event) =>
                        visibility.mutate({ name: bucket.name, isPublic: event.currentTarget.checked })
                      }
                    />
                  </Table.Td>
                  <Table.Td ta="right">{usage.get(bucket.name)?.objects ?? '—'}</Table.Td>
                  <Table.Td ta="right">{formatBytes(usage.get(bucket.name)?.bytes)}</Table.Td>
                  <Table.Td ta="right">
                    <ConfirmButton
                      size="xs"
                      ariaLabel={`Delete bucket ${bucket.name}`}
                      title={`Delete bucket ${bucket.name}?`}
                      message="The bucket and every object in it are deleted. This cannot be undone."
                      confirmLabel="Delete bucket"
                      onConfirm={() => remove(bucket.name)}
                      label="Delete"
                    />
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
