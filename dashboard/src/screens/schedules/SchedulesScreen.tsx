// Schedules: every schedule with its timing, target and next run; create one; pause, resume, run
// now, delete; and the run history of the one selected.
import { Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { formatTime } from '../../ui/format';
import { RunHistory } from './RunHistory';
import { ScheduleForm } from './ScheduleForm';
import { ScheduleRowActions } from './ScheduleRowActions';
import { type Schedule, schedulesKey } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

const targetOf = (s: Schedule) => (s.functionSlug ? `function ${s.functionSlug}` : s.functionUrl);

export default function SchedulesScreen() {
  const api = useApi();
  const schedules = useQuery({ queryKey: schedulesKey, queryFn: () => api.json<Schedule[]>('/api/schedules') });
  const [creating, setCreating] = useState(false);
  const [historyOf, setHistoryOf] = useState<string | null>(null);
  const selected = schedules.data?.find((s) => s.id === historyOf);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Schedules
        </Title>
        {creating ? null : <Button onClick={() => setCreating(true)}>New schedule</Button>}
      </Group>
      {creating ? (
        <Paper withBorder p="md">
          <ScheduleForm onDone={() => setCreating(false)} />
        </Paper>
      ) : null}
      {schedules.isPending ? <Loading what="schedules" /> : null}
      {schedules.isError ? <ErrorState error={schedules.error} what="schedules" /> : null}
      {schedules.data?.length === 0 ? (
        <EmptyState title="No schedules yet">
          A schedule calls a function or a URL of this API on a cron timing.
        </EmptyState>
      ) : null}
      {schedules.data?.length ? (
        <HorizontalScroll label="Schedules" minWidth={900}>
          <Table aria-label="Schedules" striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Timing</Table.Th>
                <Table.Th>Target</Table.Th>
                <Table.Th>Last run</Table.Th>
                <Table.Th>Next run</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {schedules.data.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>{s.name}</Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {s.cronSchedule}
                    </Text>
                    <Text size="xs">{s.timeZone}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {s.httpMethod} {targetOf(s)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{formatTime(s.lastExecutedAt)}</Table.Td>
                  <Table.Td>{s.isActive ? formatTime(s.nextRun) : 'Paused'}</Table.Td>
                  <Table.Td>
                    <ScheduleRowActions schedule={s} onShowHistory={() => setHistoryOf(s.id)} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
      {selected ? (
        <Paper withBorder p="md">
          <RunHistory schedule={selected} />
        </Paper>
      ) : null}
    </Stack>
  );
}
