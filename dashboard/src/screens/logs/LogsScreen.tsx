// Logs: search the stored lines by source, level, time range, user, request id and text (paged,
// newest first), tail new ones live, and open a request to see its function logs and audit entries.
import { Button, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { LiveTail } from './LiveTail';
import { LogFilters } from './LogFilters';
import { type LogFilter, type LogLine, NO_FILTER, searchQuery, totalOf } from './log-types';
import { LogTable } from './LogTable';
import { RequestDrawer } from './RequestDrawer';

const PAGE_SIZE = 50;

export default function LogsScreen() {
  const api = useApi();
  const [filter, setFilter] = useState<LogFilter>(NO_FILTER);
  const [page, setPage] = useState(0);
  const [request, setRequest] = useState<string | null>(null);

  const search = useQuery({
    queryKey: ['logs', 'search', filter, page],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const res = await api.request(`/api/logs/search?${searchQuery(filter, PAGE_SIZE, page * PAGE_SIZE)}`);
      return { lines: (await res.json()) as LogLine[], total: totalOf(res.headers.get('content-range')) };
    },
  });
  const lines = search.data?.lines ?? [];
  const first = page * PAGE_SIZE;
  const hasMore = search.data
    ? search.data.total === null
      ? lines.length === PAGE_SIZE
      : first + lines.length < search.data.total
    : false;

  return (
    <Stack>
      <Title order={1} size="h2">
        Logs
      </Title>
      <LogFilters
        value={filter}
        onApply={(next) => {
          setFilter(next);
          setPage(0);
          void search.refetch();
        }}
      />
      <Tabs defaultValue="search" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="search">Search results</Tabs.Tab>
          <Tabs.Tab value="live">Live tail</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="search" pt="sm">
          {search.isPending ? <Loading what="logs" /> : null}
          {search.isError ? <ErrorState error={search.error} what="logs" /> : null}
          {search.data && lines.length === 0 ? (
            <EmptyState title="No log lines match">Change the filters, or widen the time range.</EmptyState>
          ) : null}
          {lines.length > 0 ? (
            <Stack gap="xs">
              <LogTable label="Log lines" lines={lines} onOpenRequest={setRequest} />
              <Group justify="space-between">
                <Text size="sm" role="status">
                  Lines {first + 1}–{first + lines.length}
                  {search.data?.total !== null && search.data?.total !== undefined ? ` of ${search.data.total}` : ''}
                </Text>
                <Group gap="xs">
                  <Button variant="default" size="xs" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
                    Previous page
                  </Button>
                  <Button variant="default" size="xs" disabled={!hasMore} onClick={() => setPage((p) => p + 1)}>
                    Next page
                  </Button>
                  <Button variant="default" size="xs" onClick={() => void search.refetch()} loading={search.isFetching}>
                    Refresh
                  </Button>
                </Group>
              </Group>
            </Stack>
          ) : null}
        </Tabs.Panel>
        <Tabs.Panel value="live" pt="sm">
          <LiveTail filter={filter} onOpenRequest={setRequest} />
        </Tabs.Panel>
      </Tabs>
      <RequestDrawer requestId={request} onClose={() => setRequest(null)} />
    </Stack>
  );
}
