// AI usage over the report's days: a chart of tokens per day, tables per model, per caller and per
// caller and day.
import { Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { CallerUsageTable } from './CallerUsageTable';
import { aiKey, type UsageReport } from './types';
import { totalsByCallerAndDay, totalsByDay, totalsByModel } from './usage-by-day';
import { lazyWithPreload } from '../../ui/lazy-preload';
import { RowsTable } from '../../ui/QueryTable';
import { nextSteps } from '../../ui/next-steps';

const UsageChart = lazyWithPreload(() => import('./UsageChart'));

export function UsagePanel() {
  const api = useApi();
  const usage = useQuery({ queryKey: [...aiKey, 'usage'], queryFn: () => api.json<UsageReport>('/api/ai/usage') });
  useEffect(() => UsageChart.preload(), []);
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
            <EmptyState title="No usage yet" next={nextSteps.aiUsage()}>
              Calls to the AI routes are counted here per caller and day. Call a model from your app:
            </EmptyState>
          ) : (
            <>
              <Suspense fallback={<Loading what="the chart" />}>
                <UsageChart days={totalsByDay(usage.data.usage)} />
              </Suspense>
              <Title order={3} size="h5">
                Per model
              </Title>
              <RowsTable
                label="Usage per model"
                minWidth={560}
                rows={totalsByModel(usage.data.usage)}
                rowKey={(row) => row.model}
                columns={[
                  { header: 'Model', cell: (row) => row.model },
                  { header: 'Requests', cell: (row) => row.requests, align: 'right' },
                  { header: 'Input tokens', cell: (row) => row.inputTokens, align: 'right' },
                  { header: 'Output tokens', cell: (row) => row.outputTokens, align: 'right' },
                  { header: 'Callers', cell: (row) => row.callers, align: 'right' },
                ]}
              />
              <Title order={3} size="h5">
                Per caller
              </Title>
              <CallerUsageTable />
              <Title order={3} size="h5">
                Per caller and day
              </Title>
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
