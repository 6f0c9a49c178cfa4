// Logs: search the stored lines by source, level, time range, user, request id and text (paged,
// newest first), tail new ones live, and open a request to see its function logs and audit entries.
// The console's own requests (/dashboard) are hidden unless the admin asks for them.
import { Button, Group, Stack, Switch, Tabs, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { nextSteps } from '../../ui/next-steps';
import { LiveTail } from './LiveTail';
import { LogFilters } from './LogFilters';
import { readLogPage, searchFetcher } from './log-pages';
import { filterOfUrl, type LogFilter } from './log-types';
import { LogTable } from './LogTable';
import { RequestDrawer } from './RequestDrawer';

interface Page {
  start: number;
  shownBefore: number;
}
const FIRST: Page = { start: 0, shownBefore: 0 };

export default function LogsScreen() {
  const api = useApi();
  const [filter, setFilter] = useState<LogFilter>(() => filterOfUrl(window.location.search));
  const [showConsole, setShowConsole] = useState(false);
  /** The pages visited so far (server offset, lines shown before it); the last is the one shown. */
  const [pages, setPages] = useState<Page[]>([FIRST]);
  const [request, setRequest] = useState<string | null>(null);
  const { start, shownBefore } = pages[pages.length - 1] ?? FIRST;

  const search = useQuery({
    queryKey: ['logs', 'search', filter, start, showConsole],
    placeholderData: keepPreviousData,
    queryFn: () =>
      readLogPage(
        searchFetcher((path) => api.request(path)),
        filter,
        start,
        showConsole,
      ),
  });
  const lines = search.data?.lines ?? [];

  return (
    <Stack>
      <Title order={1} size="h2">
        Logs
      </Title>
      <LogFilters
        value={filter}
        onApply={(next) => {
          setFilter(next);
          setPages([FIRST]);
          void search.refetch();
        }}
      />
      <Switch
        label="Show the console’s own requests (/dashboard)"
        checked={showConsole}
        onChange={(event) => {
          setShowConsole(event.currentTarget.checked);
          setPages([FIRST]);
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
            <EmptyState title="No log lines match" next={nextSteps.logs()}>
              {search.data.hidden > 0
                ? `Only the console's own requests (${search.data.hidden}) match: switch them on above to see them. `
                : ''}
              Change the filters, or widen the time range. The CLI searches and follows the same lines:
            </EmptyState>
          ) : null}
          {lines.length > 0 && search.data ? (
            <Stack gap="xs">
              <LogTable label="Log lines" lines={lines} onOpenRequest={setRequest} />
              <Group justify="space-between">
                <Text size="sm" role="status">
                  Lines {shownBefore + 1}–{shownBefore + lines.length}
                  {search.data.total !== null ? ` of ${search.data.total}` : ''}
                  {search.data.hidden > 0
                    ? ` (${search.data.hidden} console request${search.data.hidden === 1 ? '' : 's'} hidden)`
                    : ''}
                </Text>
                <Group gap="xs">
                  <Button
                    variant="default"
                    size="xs"
                    disabled={pages.length === 1}
                    onClick={() => setPages((p) => p.slice(0, -1))}
                  >
                    Previous page
                  </Button>
                  <Button
                    variant="default"
                    size="xs"
                    disabled={!search.data.hasMore}
                    onClick={() =>
                      setPages((p) => [...p, { start: search.data.next, shownBefore: shownBefore + lines.length }])
                    }
                  >
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
          <LiveTail filter={filter} showConsole={showConsole} onOpenRequest={setRequest} />
        </Tabs.Panel>
      </Tabs>
      <RequestDrawer requestId={request} onClose={() => setRequest(null)} />
    </Stack>
  );
}
