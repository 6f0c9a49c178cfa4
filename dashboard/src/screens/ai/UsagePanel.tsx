// AI usage over the report's days: a chart of tokens per day and a table per caller and day.
import { Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { aiKey, type UsageReport } from './types';
import { totalsByCallerAndDay, totalsByDay } from './usage-by-day';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

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
              <HorizontalScroll label="Usage per caller and day" minWidth={560}>
                <Table aria-label="Usage per caller and day" striped>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Day</Table.Th>
                      <Table.Th>Caller</Table.Th>
                      <Table.Th ta="right">Requests</Table.Th>
                      <Table.Th ta="right">Tokens</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {totalsByCallerAndDay(usage.data.usage).map((row) => (
                      <Table.Tr key={`${row.day}-${row.subject}`}>
                        <Table.Td>{row.day}</Table.Td>
                        <Table.Td>
                          {row.subjectKind === 'user' ? row.subject : `${row.subjectKind} ${row.subject}`}
                        </Table.Td>
                        <Table.Td ta="right">{row.requests}</Table.Td>
                        <Table.Td ta="right">{row.tokens}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </HorizontalScroll>
            </>
          )}
        </Stack>
      ) : null}
    </section>
  );
}
