// The overview's recent errors: the last error-level log entries (5xx answers, failed functions,
// server errors), each linking to its request on the Logs screen.
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { Time } from '../../ui/Time';
import { QueryTable } from '../../ui/QueryTable';

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
  return (
    <QueryTable
      label="Recent errors"
      empty="Nothing has failed lately."
      minWidth={560}
      query={errors}
      rowKey={(hit) => hit.id}
      columns={[
        { header: 'When', cell: (hit) => <Time iso={hit.timestamp} /> },
        { header: 'Source', cell: (hit) => (hit.body.slug ? `${hit.source} (${hit.body.slug})` : hit.source) },
        {
          header: 'What',
          cell: (hit) =>
            hit.body.requestId ? (
              <Link to={`/logs?requestId=${encodeURIComponent(hit.body.requestId)}`}>{hit.body.message}</Link>
            ) : (
              <Text size="sm">{hit.body.message}</Text>
            ),
        },
      ]}
    />
  );
}
