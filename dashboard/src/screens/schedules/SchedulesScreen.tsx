// Schedules: every schedule with its timing, target and next run; create one; pause, resume, run
// now, delete; and the run history of the one selected.
import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { formatTime } from '../../ui/format';
import { Time } from '../../ui/Time';
import { QueryTable } from '../../ui/QueryTable';
import { RunHistory } from './RunHistory';
import { ScheduleForm } from './ScheduleForm';
import { ScheduleRowActions } from './ScheduleRowActions';
import { type Schedule, schedulesKey } from './types';
import { nextSteps } from '../../ui/next-steps';

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
      <QueryTable
        label="Schedules"
        emptyTitle="No schedules yet"
        empty="A schedule calls a function or a URL on a cron timing: add one with the form, or with the CLI:"
        next={nextSteps.schedules()}
        minWidth={900}
        query={schedules}
        rowKey={(s) => s.id}
        columns={[
          { header: 'Name', cell: (s) => s.name },
          {
            header: 'Timing',
            cell: (s) => (
              <>
                <Text size="sm" ff="monospace">
                  {s.cronSchedule}
                </Text>
                <Text size="xs">{s.timeZone}</Text>
              </>
            ),
          },
          { header: 'Target', cell: (s) => `${s.httpMethod} ${targetOf(s)}` },
          { header: 'Last run', cell: (s) => <Time iso={s.lastExecutedAt} /> },
          { header: 'Next run', cell: (s) => (s.isActive ? formatTime(s.nextRun) : 'Paused') },
          {
            header: 'Actions',
            cell: (s) => <ScheduleRowActions schedule={s} onShowHistory={() => setHistoryOf(s.id)} />,
          },
        ]}
      />
      {selected ? (
        <Paper withBorder p="md">
          <RunHistory schedule={selected} />
        </Paper>
      ) : null}
    </Stack>
  );
}
