// The logs screen's filters: source, level, time range, user, request id and text; applied on
// Search, cleared on Reset.
import { Button, Group, Select, SimpleGrid, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { type LogFilter, NO_FILTER } from './log-types';

/** The Select's value for no filter (the filter itself holds ''). */
const ALL = 'all';
const SOURCES = [
  { value: ALL, label: 'All sources' },
  { value: 'requests', label: 'Requests' },
  { value: 'functions', label: 'Functions' },
  { value: 'audit', label: 'Audit' },
  { value: 'errors', label: 'Errors' },
];
const LEVELS = [
  { value: ALL, label: 'All levels' },
  { value: 'info', label: 'Info' },
  { value: 'warn', label: 'Warn' },
  { value: 'error', label: 'Error' },
];

export function LogFilters({ value, onApply }: { value: LogFilter; onApply: (filter: LogFilter) => void }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const set = (key: keyof LogFilter) => (next: string | null) => setDraft((d) => ({ ...d, [key]: next ?? '' }));
  const choice = (key: keyof LogFilter) => (next: string | null) => set(key)(next === ALL ? '' : next);
  const text = (key: keyof LogFilter) => (event: React.ChangeEvent<HTMLInputElement>) =>
    set(key)(event.currentTarget.value);

  return (
    <form
      aria-label="Log filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm">
        <Select
          label="Source"
          data={SOURCES}
          value={draft.source || ALL}
          onChange={choice('source')}
          allowDeselect={false}
        />
        <Select
          label="Level"
          data={LEVELS}
          value={draft.level || ALL}
          onChange={choice('level')}
          allowDeselect={false}
        />
        <TextInput label="From" type="datetime-local" value={draft.from} onChange={text('from')} />
        <TextInput label="To" type="datetime-local" value={draft.to} onChange={text('to')} />
        <TextInput label="User id" value={draft.userId} onChange={text('userId')} />
        <TextInput label="Request id" value={draft.requestId} onChange={text('requestId')} />
        <TextInput label="Text" value={draft.text} onChange={text('text')} />
        <Group align="flex-end" gap="xs">
          <Button type="submit">Search</Button>
          <Button variant="default" onClick={() => onApply(NO_FILTER)}>
            Reset
          </Button>
        </Group>
      </SimpleGrid>
    </form>
  );
}
