// The run history of one schedule, newest first: when, outcome, status code, duration, message.
import { Badge, Code, Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { formatTime } from '../../ui/format';
import { type RunPage, runsKey, type Schedule } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

const STATUS_COLOR = { success: 'teal.9', failed: 'red.9', timed_out: 'orange.9', running: 'blue.9' } as const;

export function RunHistory({ schedule }: { schedule: Schedule }) {
  const api = useApi();
  const runs = useQuery({
    queryKey: runsKey(schedule.id),
    queryFn: () => api.json<RunPage>(`/api/schedules/${schedule.id}/logs?limit=50`),
  });
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Run history of {schedule.name}
      </Title>
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.isError ? <ErrorState error={runs.error} what="the run history" /> : null}
      {runs.data?.logs.length === 0 ? (
        <EmptyState title="No runs yet">Use Run now, or wait for its next run.</EmptyState>
      ) : null}
      {runs.data?.logs.length ? (
        <HorizontalScroll label={`Runs of ${schedule.name}`} minWidth={640}>
          <Table aria-label={`Runs of ${schedule.name}`} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Started</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Duration</Table.Th>
                <Table.Th>Message</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data.logs.map((run) => (
                <Table.Tr key={run.id}>
                  <Table.Td>{formatTime(run.executedAt)}</Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLOR[run.status]}>{run.status}</Badge>
                  </Table.Td>
                  <Table.Td>{run.statusCode ?? '—'}</Table.Td>
                  <Table.Td>{run.durationMs === null ? '—' : `${run.durationMs} ms`}</Table.Td>
                  <Table.Td>
                    {run.message}
                    {run.excerpt ? (
                      <Code block mt={4}>
                        {run.excerpt.slice(0, 200)}
                      </Code>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </Stack>
  );
}
