// The command palette (Ctrl+K / ⌘K, or the header's Search button): jump to any screen, table,
// function or bucket of the project, or to a user found by email as the admin types. Arrow keys
// move through the matches, Enter opens one.
import { Modal, NavLink, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useState } from 'react';
import { useApi } from '../api/context';
import type { ProjectMetadata } from '../api/types';
import { navigate } from './route';
import { screens } from './screens';

interface Target {
  id: string;
  label: string;
  kind: string;
  to: string;
}

const MAX_SHOWN = 12;
const seg = encodeURIComponent;

/** Every place of the project that matches the query (all of them for an empty one), screens first. */
function useTargets(query: string): Target[] {
  const api = useApi();
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });
  const search = query.trim().toLowerCase();
  const users = useQuery({
    queryKey: ['users', 'palette', search],
    enabled: search.length >= 2,
    queryFn: () =>
      api.json<{ data: { id: string; email: string | null }[] }>(
        `/api/auth/users?${new URLSearchParams({ search, limit: '5' })}`,
      ),
  });
  const all: Target[] = [
    ...screens.map((s) => ({ id: `screen:${s.path}`, label: s.label, kind: 'Screen', to: s.path })),
    ...(metadata.data?.database.tables ?? []).map((t) => ({
      id: `table:${t.name}`,
      label: t.name,
      kind: 'Table',
      to: `/tables/${seg(t.name)}`,
    })),
    ...(metadata.data?.functions.functions ?? []).map((f) => ({
      id: `function:${f.slug}`,
      label: f.slug,
      kind: 'Function',
      to: `/functions/${seg(f.slug)}`,
    })),
    ...(metadata.data?.storage.buckets ?? []).map((b) => ({
      id: `bucket:${b.name}`,
      label: b.name,
      kind: 'Bucket',
      to: `/storage/${seg(b.name)}`,
    })),
  ];
  const matches = all.filter((t) => t.label.toLowerCase().includes(search));
  const people = (users.data?.data ?? []).map((u) => ({
    id: `user:${u.id}`,
    label: u.email ?? u.id,
    kind: 'User',
    to: `/users/${seg(u.id)}`,
  }));
  return [...matches, ...people].slice(0, MAX_SHOWN);
}

function Palette({ onClose }: { onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const targets = useTargets(query);
  const current = Math.min(selected, Math.max(targets.length - 1, 0));
  const open = (target: Target | undefined) => {
    if (!target) return;
    onClose();
    navigate(target.to);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setSelected((current + step + targets.length) % Math.max(targets.length, 1));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      open(targets[current]);
    }
  };
  return (
    <Stack gap="xs">
      <TextInput
        data-autofocus
        aria-label="Search the project"
        placeholder="A screen, table, function, bucket or user…"
        value={query}
        onChange={(event) => {
          setQuery(event.currentTarget.value);
          setSelected(0);
        }}
        onKeyDown={onKeyDown}
        role="combobox"
        aria-expanded={targets.length > 0}
        aria-controls="command-palette-results"
        aria-activedescendant={targets[current] ? `palette-${current}` : undefined}
      />
      <ScrollArea.Autosize mah={360}>
        <div id="command-palette-results" role="listbox" aria-label="Matches">
          {targets.map((target, index) => (
            <NavLink
              key={target.id}
              id={`palette-${index}`}
              role="option"
              aria-selected={index === current}
              active={index === current}
              label={target.label}
              description={target.kind}
              onMouseEnter={() => setSelected(index)}
              onClick={() => open(target)}
            />
          ))}
        </div>
      </ScrollArea.Autosize>
      {targets.length === 0 ? <Text size="sm">Nothing matches.</Text> : null}
    </Stack>
  );
}

export function CommandPalette({
  opened,
  onOpen,
  onClose,
}: {
  opened: boolean;
  onOpen: () => void;
  onClose: () => void;
}) {
  useHotkeys([['mod+K', onOpen]], []);
  return (
    <Modal opened={opened} onClose={onClose} title="Go to" size="lg">
      {opened ? <Palette onClose={onClose} /> : null}
    </Modal>
  );
}
