// What an admin does to one schedule from its row: pause or resume, run now, see the history,
// delete (confirmed).
import { Button, Group, Switch } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { jsonInit } from '../../ui/json';
import { runsKey, type Schedule, schedulesKey } from './types';

export function ScheduleRowActions({ schedule, onShowHistory }: { schedule: Schedule; onShowHistory(): void }) {
  const api = useApi();
  const queries = useQueryClient();
  const refresh = () => queries.invalidateQueries({ queryKey: schedulesKey });
  const toggle = useMutation({
    mutationFn: (isActive: boolean) => api.json(`/api/schedules/${schedule.id}`, jsonInit('PATCH', { isActive })),
    onSettled: refresh,
  });
  const runNow = useMutation({
    mutationFn: () => api.json(`/api/schedules/${schedule.id}/run`, jsonInit('POST')),
    onSuccess: onShowHistory,
    onSettled: () => Promise.all([refresh(), queries.invalidateQueries({ queryKey: runsKey(schedule.id) })]),
  });
  const remove = useMutation({
    mutationFn: () => api.json(`/api/schedules/${schedule.id}`, jsonInit('DELETE')),
    onSettled: refresh,
  });
  return (
    <>
      <Group gap="xs" wrap="wrap">
        <Switch
          label="Active"
          checked={schedule.isActive}
          disabled={toggle.isPending}
          onChange={(event) => toggle.mutate(event.currentTarget.checked)}
          aria-label={`Active: ${schedule.name}`}
        />
        <Button
          size="xs"
          loading={runNow.isPending}
          onClick={() => runNow.mutate()}
          aria-label={`Run now: ${schedule.name}`}
        >
          Run now
        </Button>
        <Button size="xs" variant="default" onClick={onShowHistory} aria-label={`History of ${schedule.name}`}>
          History
        </Button>
        <ConfirmButton
          ariaLabel={`Delete ${schedule.name}`}
          title={`Delete schedule ${schedule.name}?`}
          message="The schedule and its run history are deleted; it will not run again."
          confirmLabel="Delete schedule"
          onConfirm={() => remove.mutateAsync()}
          label="Delete"
          size="xs"
        />
      </Group>
      <ActionError error={toggle.error ?? runNow.error ?? remove.error} title="Could not change the schedule" />
    </>
  );
}
