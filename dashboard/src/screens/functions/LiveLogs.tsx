// A function's logs, live: the newest entries (source=functions and its slug) and then every new
// one from the logs module's Server-Sent Events tail, newest first, with status and duration.
import { Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { StatusBadge } from '../../ui/StatusBadge';
import { readEventStream } from '../../api/event-stream';
import { EmptyState, ErrorState } from '../../shell/states';
import type { LogLine } from './types';
import { nextSteps } from '../../ui/next-steps';

/** Entries kept on screen. */
const KEEP = 100;

type TailState = 'connecting' | 'live' | 'ended';

export function LiveLogs({ slug }: { slug: string }) {
  const api = useApi();
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<TailState>('connecting');
  const [failure, setFailure] = useState<unknown>(null);

  useEffect(() => {
    const abort = new AbortController();
    const add = (incoming: LogLine[]) =>
      setLines((shown) => {
        const seen = new Set(shown.map((l) => l.id));
        const merged = [...incoming.filter((l) => !seen.has(l.id)), ...shown];
        return merged.sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, KEEP);
      });
    const filter = new URLSearchParams({ source: 'functions', slug });
    (async () => {
      // The tail first, so nothing recorded between the two reads is missed (ids dedupe).
      const stream = await api.request(`/api/logs/stream?${filter}`, { signal: abort.signal });
      setState('live');
      const recent = api.json<LogLine[]>(`/api/logs/search?${filter}&limit=20`, { signal: abort.signal });
      const reading = readEventStream(stream, (event) => {
        if (event.event === 'log') add([JSON.parse(event.data) as LogLine]);
      });
      add(await recent);
      await reading;
      setState('ended');
    })().catch((err: unknown) => {
      if (abort.signal.aborted) return;
      setFailure(err);
      setState('ended');
    });
    return () => abort.abort();
  }, [api, slug]);

  return (
    <Paper withBorder p="md" aria-label="Function logs" role="region">
      <Stack>
        <Title order={2} size="h4">
          Logs{' '}
          <StatusBadge tone={state === 'live' ? 'good' : state === 'ended' ? 'bad' : 'neutral'}>{state}</StatusBadge>
        </Title>
        {failure ? <ErrorState error={failure} what="the live logs" /> : null}
        {lines.length === 0 ? (
          <EmptyState title="No invocations logged yet" next={nextSteps.invocations(slug)}>
            Invoke the function (the Invoke panel, the CLI or your app): each call appears here as it happens.
          </EmptyState>
        ) : (
          <Table.ScrollContainer minWidth={320}>
            <Table aria-label={`Log entries of ${slug}`} striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th ta="right">Duration</Table.Th>
                  <Table.Th>Message</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {lines.map((line) => (
                  <Table.Tr key={line.id}>
                    <Table.Td>
                      <Text size="xs">{new Date(line.timestamp).toLocaleTimeString()}</Text>
                    </Table.Td>
                    <Table.Td>{line.body.status ?? line.body.level}</Table.Td>
                    <Table.Td ta="right">{line.body.durationMs === null ? '—' : `${line.body.durationMs} ms`}</Table.Td>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{line.body.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Paper>
  );
}
