// Saved snippets (server-side, shared by the project's admins): save the editor's SQL under a name,
// load one, update the loaded one with the editor's SQL, delete one (confirmed).
import { Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { jsonBody, type Snippet } from './sql-types';

const SNIPPETS = ['sql-snippets'];

export function SnippetsPanel({
  sql,
  loaded,
  onLoad,
}: {
  sql: string;
  loaded: Snippet | null;
  onLoad: (snippet: Snippet | null) => void;
}) {
  const api = useApi();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [deleting, setDeleting] = useState<Snippet | null>(null);
  const list = useQuery({
    queryKey: SNIPPETS,
    queryFn: async () => (await api.json<{ snippets: Snippet[] }>('/api/database/snippets')).snippets,
  });
  const refresh = () => queries.invalidateQueries({ queryKey: SNIPPETS });

  const save = useMutation({
    mutationFn: () => api.json<Snippet>('/api/database/snippets', jsonBody({ name: name.trim(), sql })),
    onSuccess: (saved) => {
      setName('');
      onLoad(saved);
      return refresh();
    },
  });
  const update = useMutation({
    mutationFn: (snippet: Snippet) =>
      api.json<Snippet>(`/api/database/snippets/${snippet.id}`, { ...jsonBody({ sql }), method: 'PATCH' }),
    onSuccess: (saved) => {
      onLoad(saved);
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (snippet: Snippet) => api.json(`/api/database/snippets/${snippet.id}`, { method: 'DELETE' }),
    onSuccess: (_, snippet) => {
      if (loaded?.id === snippet.id) onLoad(null);
      return refresh();
    },
  });

  return (
    <Stack gap="sm">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Snippet name"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            style={{ flex: 1, minWidth: 160 }}
          />
          <Button type="submit" disabled={!name.trim() || !sql.trim()} loading={save.isPending}>
            Save snippet
          </Button>
        </Group>
      </form>
      {loaded ? (
        <Group gap="xs">
          <Text size="sm">
            Editing <strong>{loaded.name}</strong>
          </Text>
          <Button
            size="xs"
            variant="light"
            disabled={sql === loaded.sql}
            loading={update.isPending}
            onClick={() => update.mutate(loaded)}
          >
            Update “{loaded.name}”
          </Button>
        </Group>
      ) : null}
      {save.isError ? <ActionError title="Could not save the snippet" error={save.error} /> : null}
      {update.isError ? <ActionError title="Could not update the snippet" error={update.error} /> : null}
      {remove.isError ? <ActionError title="Could not delete the snippet" error={remove.error} /> : null}
      {list.isPending ? <Loading what="snippets" /> : null}
      {list.isError ? <ErrorState error={list.error} what="snippets" /> : null}
      {list.data?.length === 0 ? (
        <EmptyState title="No saved snippets">Name the editor’s SQL above and save it.</EmptyState>
      ) : null}
      {list.data?.length ? (
        <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Saved snippets">
          {list.data.map((snippet) => (
            <li key={snippet.id}>
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Button
                  size="compact-xs"
                  variant="light"
                  style={{ flexShrink: 0 }}
                  onClick={() => onLoad(snippet)}
                  aria-label={`Load ${snippet.name}`}
                >
                  Load
                </Button>
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  style={{ flexShrink: 0 }}
                  onClick={() => setDeleting(snippet)}
                  aria-label={`Delete ${snippet.name}`}
                >
                  Delete
                </Button>
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text size="sm" fw={600}>
                    {snippet.name}
                  </Text>
                  <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{snippet.sql}</Code>
                </Stack>
              </Group>
            </li>
          ))}
        </Stack>
      ) : null}
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete the snippet “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete snippet"
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting);
          setDeleting(null);
        }}
      >
        Every admin loses it; this cannot be undone.
      </ConfirmDialog>
    </Stack>
  );
}
