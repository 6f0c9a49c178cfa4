// The columns of one table and altering them through PATCH /api/database/tables/{t}/schema: add a
// column, change one (name, type, default, NULL allowed), drop one (confirmed).
import { Badge, Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ColumnForm, type ColumnDraft } from './ColumnForm';
import { type ColumnInfo, jsonInit, schemaKey } from './tableApi';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

type Alteration = Record<string, unknown>;

export function useAlterTable(table: string) {
  const api = useApi();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (change: Alteration) =>
      api.json(`/api/database/tables/${encodeURIComponent(table)}/schema`, jsonInit('PATCH', change)),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: schemaKey(table) });
      await queries.invalidateQueries({ queryKey: ['rows', table] });
    },
  });
}

const draftOf = (c: ColumnInfo): ColumnDraft => ({
  columnName: c.columnName,
  type: c.type,
  defaultValue: c.defaultValue ?? '',
  isNullable: c.isNullable,
  isUnique: c.isUnique,
});

/** Only what changed, in the API's updateColumns shape. */
function updateOf(before: ColumnInfo, after: ColumnDraft): Alteration {
  const update: Alteration = { columnName: before.columnName };
  if (after.columnName !== before.columnName) update.newColumnName = after.columnName;
  if (after.type !== before.type) update.type = after.type;
  if (after.defaultValue !== (before.defaultValue ?? '')) update.defaultValue = after.defaultValue || null;
  if (after.isNullable !== before.isNullable) update.isNullable = after.isNullable;
  return { updateColumns: [update] };
}

export function StructurePanel({ table, columns }: { table: string; columns: ColumnInfo[] }) {
  const alter = useAlterTable(table);
  const [editing, setEditing] = useState<ColumnInfo | 'new' | null>(null);
  const [dropping, setDropping] = useState<string | null>(null);
  const close = () => {
    setEditing(null);
    setDropping(null);
    alter.reset();
  };
  const run = (change: Alteration) => alter.mutate(change, { onSuccess: close });

  return (
    <Stack>
      <Group justify="space-between">
        <Text size="sm">{columns.length} columns</Text>
        <Button onClick={() => setEditing('new')}>Add column</Button>
      </Group>
      {!editing && !dropping ? <ActionError error={alter.error} /> : null}
      <HorizontalScroll label={`Columns of ${table}`}>
        <Table striped miw={700} aria-label={`Columns of ${table}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Column</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Constraints</Table.Th>
              <Table.Th>Default</Table.Th>
              <Table.Th>References</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {columns.map((c) => (
              <Table.Tr key={c.columnName}>
                <Table.Td>{c.columnName}</Table.Td>
                <Table.Td>{c.enumValues ? `${c.type} (${c.enumValues.join(', ')})` : c.type}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {c.isPrimaryKey ? <Badge variant="light">primary key</Badge> : null}
                    {c.isUnique && !c.isPrimaryKey ? <Badge variant="light">unique</Badge> : null}
                    {c.isNullable ? null : (
                      <Badge variant="light" color="gray">
                        not null
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>{c.defaultValue ? <Code>{c.defaultValue}</Code> : '—'}</Table.Td>
                <Table.Td>
                  {c.foreignKey
                    ? `${c.foreignKey.referenceTable}.${c.foreignKey.referenceColumn} (on delete ${c.foreignKey.onDelete.toLowerCase()})`
                    : '—'}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant="default"
                      aria-label={`Change column ${c.columnName}`}
                      onClick={() => setEditing(c)}
                    >
                      Change
                    </Button>
                    <Button
                      size="compact-xs"
                      variant="default"
                      color="red"
                      aria-label={`Drop column ${c.columnName}`}
                      onClick={() => setDropping(c.columnName)}
                    >
                      Drop
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </HorizontalScroll>
      {editing ? (
        <ColumnForm
          title={editing === 'new' ? `Add a column to ${table}` : `Change column ${editing.columnName}`}
          initial={editing === 'new' ? undefined : draftOf(editing)}
          adding={editing === 'new'}
          busy={alter.isPending}
          error={alter.error}
          onClose={close}
          onSubmit={(draft) =>
            run(
              editing === 'new'
                ? { addColumns: [{ ...draft, defaultValue: draft.defaultValue || undefined }] }
                : updateOf(editing, draft),
            )
          }
        />
      ) : null}
      <ConfirmDialog
        opened={dropping !== null}
        title={`Drop column ${dropping ?? ''}?`}
        confirmLabel="Drop column"
        busy={alter.isPending}
        error={alter.error}
        onConfirm={() => dropping && run({ dropColumns: [dropping] })}
        onClose={close}
      >
        The column {dropping} and every value in it are deleted from {table}.
      </ConfirmDialog>
    </Stack>
  );
}
