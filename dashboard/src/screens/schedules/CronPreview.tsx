// The next due times of the cron expression being typed, as the server computes them (in the
// chosen time zone), or the server's reason the expression cannot fire.
import { List, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { formatTime } from '../../ui/format';

export function CronPreview({ cronSchedule, timeZone }: { cronSchedule: string; timeZone: string }) {
  const api = useApi();
  const [cron] = useDebouncedValue(cronSchedule.trim(), 300);
  const [zone] = useDebouncedValue(timeZone.trim() || 'UTC', 300);
  const preview = useQuery({
    queryKey: ['schedules', 'preview', cron, zone],
    queryFn: () =>
      api.json<{ nextRuns: string[] }>(
        `/api/schedules/preview?${new URLSearchParams({ cronSchedule: cron, timeZone: zone, count: '3' })}`,
      ),
    enabled: cron !== '',
    retry: false,
    placeholderData: keepPreviousData,
  });
  if (cron === '') return null;
  return (
    <section aria-label="Next runs" aria-live="polite">
      {preview.isError ? (
        <Text size="sm" c="red.9">
          {preview.error.message}
        </Text>
      ) : null}
      {preview.data && !preview.isError ? (
        <>
          <Text size="sm">Next runs (your local time):</Text>
          <List size="sm">
            {preview.data.nextRuns.map((run) => (
              <List.Item key={run}>{formatTime(run)}</List.Item>
            ))}
          </List>
        </>
      ) : null}
    </section>
  );
}
