// The overview's recent errors: the last error-level log entries (5xx answers, failed functions,
// server errors), each linking to its request on the Logs screen.
import { Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { formatTime } from '../../ui/format';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

interface LogHit {
  id: string;
  timestamp: string;
  source: string;
  body: { status: number | null; requestId: string | null; message: string; slug: string | null };
}

export function RecentErrors() {
  const api = useApi();
  const errors = useQuery({
    queryKey: ['logs', 'recent-errors'],
    queryFn: () => api.json<LogHit[]>('/api/logs/search?level=error&limit=5'),
  });
  if (errors.isPending) return <Loading what="recent errors" />;
  if (errors.isError) return <ErrorState error={errors.error} what="recent errors" />;
  if (errors.data.length === 0) return <EmptyState title="No recent errors">Nothing has failed lately.</EmptyState>;
  return (
    <HorizontalScroll label="Recent errors" minWidth={560}>
      <Table aria-label="Recent errors" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>What</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {errors.data.map((hit) => (
            <Table.Tr key={hit.id}>
              <Table.Td>{formatTime(hit.timestamp)}</Table.Td>
              <Table.Td>{hit.body.slug ? `${hit.source} (${hit.body.slug})` : hit.source}</Table.Td>
              <Table.Td>
                {hit.body.requestId ? (
                  <Link to={`/logs?requestId=${encodeURIComponent(hit.body.requestId)}`}>{hit.body.message}</Link>
                ) : (
                  <Text size="sm">{hit.body.message}</Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </HorizontalScroll>
  );
}
