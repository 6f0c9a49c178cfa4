// AI usage over the report's days: a chart of tokens per day and a table per caller and day.
import { Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { aiKey, type UsageReport } from './types';
import { totalsByCallerAndDay, totalsByDay } from './usage-by-day';
import { RowsTable } from '../../ui/QueryTable';

const UsageChart = lazy(() => import('./UsageChart'));

export function UsagePanel() {
  const api = useApi();
  const usage = useQuery({ queryKey: [...aiKey, 'usage'], queryFn: () => api.json<UsageReport>('/api/ai/usage') });
  return (
    <section aria-label="Usage">
      <Title order={2} size="h4" mb="xs">
        Usage
      </Title>
      {usage.isPending ? <Loading what="usage" /> : null}
      {usage.isError ? <ErrorState error={usage.error} what="usage" /> : null}
      {usage.data ? (
        <Stack gap="xs">
          <Text size="sm">
            From {usage.data.from} to {usage.data.to} (UTC days)
          </Text>
          {usage.data.usage.length === 0 ? (
            <EmptyState title="No usage yet">Calls to the AI routes are counted here per caller and day.</EmptyState>
          ) : (
            <>
              <Suspense fallback={<Loading what="the chart" />}>
                <UsageChart days={totalsByDay(usage.data.usage)} />
              </Suspense>
              <RowsTable
                label="Usage per caller and day"
                minWidth={560}
                rows={totalsByCallerAndDay(usage.data.usage)}
                rowKey={(row) => `${row.day}-${row.subject}`}
                columns={[
                  { header: 'Day', cell: (row) => row.day },
                  {
                    header: 'Caller',
                    cell: (row) => (row.subjectKind === 'user' ? row.subject : `${row.subjectKind} ${row.subject}`),
                  },
                  { header: 'Requests', cell: (row) => row.requests, align: 'right' },
                  { header: 'Tokens', cell: (row) => row.tokens, align: 'right' },
                ]}
              />
            </>
          )}
        </Stack>
      ) : null}
    </section>
  );
}
