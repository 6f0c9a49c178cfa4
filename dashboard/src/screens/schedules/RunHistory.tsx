// The run history of one schedule, newest first: when, outcome, status code, duration, message.
import { Badge, Code, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Time } from '../../ui/Time';
import { QueryTable } from '../../ui/QueryTable';
import { type RunPage, runsKey, type Schedule } from './types';

const STATUS_COLOR = { success: 'teal.9', failed: 'red.9', timed_out: 'orange.9', running: 'blue.9' } as const;

export function RunHistory({ schedule }: { schedule: Schedule }) {
  const api = useApi();
  const runs = useQuery({
    queryKey: runsKey(schedule.id),
    queryFn: () => api.json<RunPage>(`/api/schedules/${schedule.id}/logs?limit=50`),
    select: (page) => page.logs,
  });
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Run history of {schedule.name}
      </Title>
      <QueryTable
        label={`Runs of ${schedule.name}`}
        what="runs"
        emptyTitle="No runs yet"
        empty="Use Run now, or wait for its next run."
        query={runs}
        rowKey={(run) => run.id}
        columns={[
          { header: 'Started', cell: (run) => <Time iso={run.executedAt} /> },
          { header: 'Outcome', cell: (run) => <Badge color={STATUS_COLOR[run.status]}>{run.status}</Badge> },
          { header: 'Status', cell: (run) => run.statusCode ?? '—' },
          { header: 'Duration', cell: (run) => (run.durationMs === null ? '—' : `${run.durationMs} ms`) },
          {
            header: 'Message',
            cell: (run) => (
              <>
                {run.message}
                {run.excerpt ? (
                  <Code block mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                    {run.excerpt.slice(0, 200)}
                  </Code>
                ) : null}
              </>
            ),
          },
        ]}
      />
    </Stack>
  );
}
