// Invoking a function as a client would: a method, headers ("Name: value" lines) and a body, with
// or without the admin session's token; the answer's status, headers and body are shown.
import {
  Alert,
  Button,
  Checkbox,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { StatusBadge } from '../../ui/StatusBadge';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
}

/** "Name: value" lines as headers; lines without a colon are skipped. */
function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** JSON bodies pretty-printed, others as they came. */
function shown(body: string, contentType: string | null): string {
  if (!contentType?.includes('json')) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function InvokePanel({ slug }: { slug: string }) {
  const api = useApi();
  const [method, setMethod] = useState('POST');
  const [headers, setHeaders] = useState('content-type: application/json');
  const [body, setBody] = useState('{\n  "name": "Plinth"\n}');
  const [asAdmin, setAsAdmin] = useState(true);
  const hasBody = method !== 'GET';

  const invoke = useMutation({
    mutationFn: async (): Promise<Answer> => {
      const path = `/functions/${encodeURIComponent(slug)}`;
      const init: RequestInit = { method, headers: headersOf(headers), body: hasBody ? body : undefined };
      const res = asAdmin
        ? await api.requestAnyStatus(path, init)
        : await fetch(path, { ...init, credentials: 'omit' });
      const text = await res.text();
      return {
        status: res.status,
        statusText: res.statusText,
        headers: [...res.headers.entries()],
        body: shown(text, res.headers.get('content-type')),
      };
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invoke.mutate();
  };
  const answer = invoke.data;

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="Invoke the function">
      <Stack>
        <Title order={2} size="h4">
          Invoke
        </Title>
        <Select
          label="Method"
          data={METHODS}
          value={method}
          onChange={(m) => setMethod(m ?? 'POST')}
          allowDeselect={false}
        />
        <Textarea
          label="Headers (one per line, Name: value)"
          autosize
          minRows={2}
          value={headers}
          onChange={(e) => setHeaders(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Textarea
          label="Body"
          autosize
          minRows={3}
          disabled={!hasBody}
          value={body}
          onChange={(e) => setBody(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Checkbox
          label="Send the admin session’s token (uncheck to call as an anonymous client)"
          checked={asAdmin}
          onChange={(e) => setAsAdmin(e.currentTarget.checked)}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={invoke.isPending}>
            Send request
          </Button>
        </Group>
        {invoke.isError ? (
          <Alert color="red" role="alert" title="The request did not complete">
            {invoke.error.message}
          </Alert>
        ) : null}
        {answer ? (
          <Stack gap="xs" aria-label="Response" role="region">
            <Text fw={500}>
              Response status{' '}
              <StatusBadge tone={answer.status < 400 ? 'good' : 'bad'} size="lg">
                {answer.status} {answer.statusText}
              </StatusBadge>
            </Text>
            <Table.ScrollContainer minWidth={300}>
              <Table aria-label="Response headers" withTableBorder>
                <Table.Tbody>
                  {answer.headers.map(([name, value]) => (
                    <Table.Tr key={name}>
                      <Table.Th scope="row">{name}</Table.Th>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Code block aria-label="Response body">
              {answer.body || '(empty body)'}
            </Code>
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}
