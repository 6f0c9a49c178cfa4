// The queries run from this browser, newest first: load one back into the editor, or clear them all.
import { Button, Code, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { EmptyState } from '../../shell/states';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import type { HistoryEntry } from './query-history';

export function HistoryPanel({
  entries,
  onLoad,
  onClear,
}: {
  entries: HistoryEntry[];
  onLoad: (entry: HistoryEntry) => void;
  onClear: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  if (entries.length === 0) return <EmptyState title="No queries yet">Queries you run appear here.</EmptyState>;
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Text size="sm">Kept in this browser (last {entries.length}).</Text>
        <Button size="xs" variant="default" onClick={() => setConfirming(true)}>
          Clear history
        </Button>
      </Group>
      <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Query history">
        {entries.map((entry, i) => (
          <li key={`${entry.at} ${entry.mode} ${entry.sql}`}>
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Button
                size="compact-xs"
                variant="light"
                style={{ flexShrink: 0 }}
                onClick={() => onLoad(entry)}
                aria-label={`Load query ${i + 1}`}
              >
                Load
              </Button>
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Group gap={4}>
                  <Text size="xs" fw={700}>
                    {entry.ok ? 'ok' : 'failed'}
                    {entry.mode === 'owner' ? ', unrestricted' : ''}
                  </Text>
                  <Text size="xs">{new Date(entry.at).toLocaleString()}</Text>
                </Group>
                <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{entry.sql}</Code>
              </Stack>
            </Group>
          </li>
        ))}
      </Stack>
      <ConfirmDialog
        opened={confirming}
        title="Clear the query history?"
        confirmLabel="Clear history"
        onClose={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          onClear();
        }}
      >
        The queries kept in this browser are removed. Saved snippets stay.
      </ConfirmDialog>
    </Stack>
  );
}
