// One request's story, from its id: the request line (and its error, if any), the function logs it
// produced and the audit entries it wrote, all from GET /api/logs/search?request_id=….
import { Code, Drawer, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import type { LogLine } from './log-types';
import { LogTable } from './LogTable';

const SECTIONS = [
  { title: 'Request', sources: ['requests', 'errors'], empty: 'No request line (yet).' },
  { title: 'Function logs', sources: ['functions'], empty: 'No function logs for this request.' },
  { title: 'Audit entries', sources: ['audit'], empty: 'No audit entries for this request.' },
] as const;

function Section({ title, lines, empty }: { title: string; lines: LogLine[]; empty: string }) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Title order={3} size="h5">
        {title} ({lines.length})
      </Title>
      {lines.length === 0 ? (
        <Text size="sm">{empty}</Text>
      ) : (
        <>
          <LogTable label={title} lines={lines} />
          {lines.map((line) =>
            line.body.details ? (
              <Code block key={`${line.id}-details`} aria-label={`Details of ${line.body.message}`}>
                {JSON.stringify(line.body.details, null, 2)}
              </Code>
            ) : null,
          )}
        </>
      )}
    </Stack>
  );
}

export function RequestDrawer({ requestId, onClose }: { requestId: string | null; onClose: () => void }) {
  const api = useApi();
  const lines = useQuery({
    queryKey: ['logs', 'request', requestId],
    enabled: requestId !== null,
    queryFn: () =>
      api.json<LogLine[]>(`/api/logs/search?${new URLSearchParams({ request_id: requestId ?? '', limit: '1000' })}`),
  });
  return (
    <Drawer
      opened={requestId !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={`Request ${requestId ?? ''}`}
      closeButtonProps={{ 'aria-label': 'Close request' }}
    >
      {lines.isPending ? <Loading what="the request’s logs" /> : null}
      {lines.isError ? <ErrorState error={lines.error} what="the request’s logs" /> : null}
      {lines.data?.length === 0 ? (
        <EmptyState title="Nothing logged for this request">
          Lines are stored a moment after the request ends.
        </EmptyState>
      ) : null}
      {lines.data?.length ? (
        <Stack>
          {SECTIONS.map((s) => (
            <Section
              key={s.title}
              title={s.title}
              empty={s.empty}
              lines={lines.data.filter((l) => (s.sources as readonly string[]).includes(l.body.source))}
            />
          ))}
        </Stack>
      ) : null}
    </Drawer>
  );
}
