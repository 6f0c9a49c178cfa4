// Creating a schedule: name, timing (with the server's preview of the next runs), target (a
// deployed function or any http(s) URL the server's outbound policy allows), method, headers and JSON body.
import { Button, Group, NativeSelect, SegmentedControl, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import type { ProjectMetadata } from '../../api/types';
import { ActionError } from '../../ui/ActionError';
import { jsonInit } from '../../ui/json';
import { CronPreview } from './CronPreview';
import { parseHeaderLines } from './headers-text';
import { schedulesKey } from './types';

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'];

function bodyOf(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function ScheduleForm({ onDone }: { onDone(): void }) {
  const api = useApi();
  const queries = useQueryClient();
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });
  const [name, setName] = useState('');
  const [cronSchedule, setCron] = useState('*/5 * * * *');
  const [timeZone, setTimeZone] = useState('UTC');
  const [targetKind, setTargetKind] = useState<'function' | 'url'>('function');
  const [functionSlug, setSlug] = useState<string | null>(null);
  const [functionUrl, setUrl] = useState('');
  const [httpMethod, setMethod] = useState('POST');
  const [headersText, setHeaders] = useState('');
  const [bodyText, setBody] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const create = useMutation({
    mutationFn: (payload: Record<string, unknown>) => api.json('/api/schedules', jsonInit('POST', payload)),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: schedulesKey });
      onDone();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseHeaderLines(headersText);
    if ('badLine' in parsed) {
      setFormError(`Headers: "${parsed.badLine}" is not "Name: value".`);
      return;
    }
    setFormError(null);
    const target = targetKind === 'function' ? { functionSlug: functionSlug ?? '' } : { functionUrl };
    const body = bodyOf(bodyText);
    create.mutate({
      name,
      cronSchedule,
      timeZone,
      httpMethod,
      ...target,
      ...(Object.keys(parsed.headers).length ? { headers: parsed.headers } : {}),
      ...(body === undefined ? {} : { body }),
    });
  };

  const functions = metadata.data?.functions.functions.map((f) => f.slug) ?? [];
  return (
    <form onSubmit={submit} aria-label="New schedule">
      <Stack>
        <TextInput label="Name" required minLength={3} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Cron expression"
            description='Five fields, or "<n> seconds"'
            required
            value={cronSchedule}
            onChange={(e) => setCron(e.currentTarget.value)}
          />
          <TextInput label="Time zone" value={timeZone} onChange={(e) => setTimeZone(e.currentTarget.value)} />
        </Group>
        <CronPreview cronSchedule={cronSchedule} timeZone={timeZone} />
        <SegmentedControl
          aria-label="Target"
          value={targetKind}
          onChange={(v) => setTargetKind(v as 'function' | 'url')}
          data={[
            { value: 'function', label: 'Function' },
            { value: 'url', label: 'Any URL' },
          ]}
        />
        {targetKind === 'function' ? (
          <Select
            label="Function"
            placeholder={functions.length ? 'Pick a deployed function' : 'No functions deployed'}
            data={functions}
            value={functionSlug}
            onChange={setSlug}
            searchable
            required
          />
        ) : (
          <TextInput
            label="URL"
            type="url"
            placeholder="https://…"
            required
            value={functionUrl}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
        )}
        <NativeSelect
          label="Method"
          data={METHODS}
          value={httpMethod}
          onChange={(e) => setMethod(e.currentTarget.value)}
        />
        <Textarea
          label="Headers"
          description="One per line: Name: value (values may use ${{secrets.KEY}})"
          autosize
          minRows={2}
          value={headersText}
          onChange={(e) => setHeaders(e.currentTarget.value)}
        />
        <Textarea
          label="Body (JSON)"
          autosize
          minRows={2}
          value={bodyText}
          onChange={(e) => setBody(e.currentTarget.value)}
        />
        {formError ? (
          <ActionError error={new Error(formError)} title="Could not create the schedule" />
        ) : (
          <ActionError error={create.error} title="Could not create the schedule" />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create schedule
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
