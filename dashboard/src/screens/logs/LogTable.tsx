// Log lines in a table: time, source, level, request (method, route, status, duration), message;
// a line's request id opens that request's drawer (without `onOpenRequest`, the column is left out).
import { Button, ScrollArea, Table, Text } from '@mantine/core';
import type { LogLine } from './log-types';

export function LogTable({
  label,
  lines,
  onOpenRequest,
}: {
  label: string;
  lines: LogLine[];
  onOpenRequest?: (requestId: string) => void;
}) {
  return (
    <ScrollArea type="auto">
      <Table striped highlightOnHover aria-label={label} miw={760} verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>Level</Table.Th>
            <Table.Th>Request</Table.Th>
            <Table.Th>Message</Table.Th>
            {onOpenRequest ? <Table.Th>Request id</Table.Th> : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {lines.map(({ id, body }) => (
            <Table.Tr key={id}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{new Date(body.timestamp).toLocaleTimeString()}</Table.Td>
              <Table.Td>{body.source}</Table.Td>
              <Table.Td>
                <Text size="sm" fw={body.level === 'info' ? 400 : 700}>
                  {body.level}
                </Text>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {body.method ? `${body.method} ${body.route ?? ''}` : (body.slug ?? '')}
                {body.status !== null ? ` → ${body.status}` : ''}
                {body.durationMs !== null ? ` (${Math.round(body.durationMs)} ms)` : ''}
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                  {body.message}
                </Text>
              </Table.Td>
              {onOpenRequest ? (
                <Table.Td>
                  {body.requestId ? (
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="gray"
                      // The text's own colour, underlined: a tinted id fell below AA contrast on a
                      // striped row under the pointer.
                      c="var(--mantine-color-text)"
                      td="underline"
                      ff="monospace"
                      maw={180}
                      title="Open this request's logs"
                      onClick={() => onOpenRequest(body.requestId as string)}
                    >
                      {body.requestId}
                    </Button>
                  ) : null}
                </Table.Td>
              ) : null}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
