// Overview: liveness and readiness with the version, how many users, tables, buckets and
// functions the project has, charts of the last hour, day or week, and its recent errors. Badges use shade 9 so white text keeps WCAG AA contrast.
import { Badge, Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useApi } from '../api/context';
import type { Health, ProjectMetadata, Readiness, UserPage } from '../api/types';
import { ErrorState, Loading } from '../shell/states';
import type { InsightsRange } from './overview/insights-types';
import { RecentErrors } from './overview/RecentErrors';

const InsightsCharts = lazy(() => import('./overview/InsightsCharts'));
const RANGES: { value: InsightsRange; label: string }[] = [
  { value: 'hour', label: 'Last hour' },
  { value: 'day', label: 'Last day' },
  { value: 'week', label: 'Last week' },
];

function Count({ label, value }: { label: string; value: number }) {
  return (
    <Paper withBorder p="md" role="group" aria-label={label}>
      <Text size="sm">{label}</Text>
      <Text fz={28} fw={700}>
        {value}
      </Text>
    </Paper>
  );
}

export default function Overview() {
  const api = useApi();
  const [range, setRange] = useState<InsightsRange>('day');
  const health = useQuery({ queryKey: ['health'], queryFn: () => api.json<Health>('/api/health') });
  // Readiness answers 503 with the same body while it cannot serve: both are shown, not thrown.
  const ready = useQuery({
    queryKey: ['health', 'ready'],
    queryFn: async () => (await fetch('/api/health/ready')).json() as Promise<Readiness>,
  });
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });
  const users = useQuery({
    queryKey: ['users', 'count'],
    queryFn: () => api.json<UserPage>('/api/auth/users?limit=1'),
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Overview
      </Title>
      <section aria-label="Health">
        {health.isPending ? <Loading what="health" /> : null}
        {health.isError ? <ErrorState error={health.error} what="health" /> : null}
        {health.data ? (
          <Group>
            <Badge color={health.data.status === 'ok' ? 'teal.9' : 'red.9'} size="lg">
              Server {health.data.status}
            </Badge>
            {ready.data ? (
              <Badge color={ready.data.status === 'ready' ? 'teal.9' : 'red.9'} size="lg">
                Database {ready.data.database}
              </Badge>
            ) : null}
            {ready.data ? (
              <Badge size="lg" variant="outline">
                Functions runtime {ready.data.functionsRuntime.status}
              </Badge>
            ) : null}
            <Text>Version {health.data.plinthVersion}</Text>
          </Group>
        ) : null}
      </section>
      <section aria-label="Counts">
        {metadata.isPending || users.isPending ? <Loading what="counts" /> : null}
        {metadata.isError ? <ErrorState error={metadata.error} what="the project metadata" /> : null}
        {users.isError ? <ErrorState error={users.error} what="users" /> : null}
        {metadata.data && users.data ? (
          <SimpleGrid cols={{ base: 2, md: 4 }}>
            <Count label="Users" value={users.data.pagination.total} />
            <Count label="Tables" value={metadata.data.database.totalTables} />
            <Count label="Buckets" value={metadata.data.storage.buckets.length} />
            <Count label="Functions" value={metadata.data.functions.functions.length} />
          </SimpleGrid>
        ) : null}
      </section>
      <section aria-label="Activity">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4">
            Activity
          </Title>
          <SegmentedControl
            aria-label="Time range"
            value={range}
            onChange={(value) => setRange(value as InsightsRange)}
            data={RANGES}
          />
        </Group>
        <Suspense fallback={<Loading what="the charts" />}>
          <InsightsCharts range={range} />
        </Suspense>
      </section>
      <section aria-label="Recent errors">
        <Title order={2} size="h4" mb="xs">
          Recent errors
        </Title>
        <RecentErrors />
      </section>
    </Stack>
  );
}
