// AI usage summed per caller over the report's days (GET /api/ai/usage/callers), the heaviest
// first: each user by email (by id once deleted), linking to their page.
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { ErrorState, Loading } from '../../shell/states';
import { RowsTable } from '../../ui/QueryTable';
import { aiKey, type CallerUsage, type UsageByCaller } from './types';

const callerCell = (row: CallerUsage) =>
  row.subjectKind === 'user' ? (
    <Link to={`/users/${encodeURIComponent(row.subject)}`}>{row.email ?? row.subject}</Link>
  ) : row.subjectKind === 'anon' ? (
    'anonymous callers'
  ) : (
    `admin (${row.subject})`
  );

export function CallerUsageTable() {
  const api = useApi();
  const callers = useQuery({
    queryKey: [...aiKey, 'usage', 'callers'],
    queryFn: () => api.json<UsageByCaller>('/api/ai/usage/callers?limit=50'),
  });
  if (callers.isPending) return <Loading what="usage per caller" />;
  if (callers.isError) return <ErrorState error={callers.error} what="usage per caller" />;
  if (callers.data.usage.length === 0) return null;
  const { usage, callers: total } = callers.data;
  return (
    <>
      <RowsTable
        label="Usage per caller"
        minWidth={720}
        rows={usage}
        rowKey={(row) => row.subject}
        columns={[
          { header: 'Caller', cell: callerCell },
          { header: 'Requests', cell: (row) => row.requests, align: 'right' },
          { header: 'Input tokens', cell: (row) => row.inputTokens, align: 'right' },
          { header: 'Output tokens', cell: (row) => row.outputTokens, align: 'right' },
          { header: 'Models', cell: (row) => row.models.join(', ') },
          { header: 'Last day', cell: (row) => row.lastDay },
        ]}
      />
      {total > usage.length ? (
        <Text size="sm">
          The {usage.length} heaviest of {total} callers.
        </Text>
      ) : null}
    </>
  );
}
