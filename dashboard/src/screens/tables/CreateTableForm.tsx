// Creates a table through POST /api/database/tables: its name, row-level security, and columns
// (type, NULL allowed, unique, primary key, default, a foreign key to another table). The API adds
// id, created_at and updated_at.
import {
  ActionIcon,
  Autocomplete,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Modal,
  NativeSelect,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { navigate } from '../../shell/route';
import { ActionError } from '../../ui/ActionError';
import { jsonInit } from './tableApi';
import { TYPE_OPTIONS } from './typeOptions';

interface ColumnRow {
  columnName: string;
  type: string;
  defaultValue: string;
  isNullable: boolean;
  isUnique: boolean;
  isPrimaryKey: boolean;
  referenceTable: string;
  referenceColumn: string;
}

const newColumn = (): ColumnRow => ({
  columnName: '',
  type: 'string',
  defaultValue: '',
  isNullable: true,
  isUnique: false,
  isPrimaryKey: false,
  referenceTable: '',
  referenceColumn: 'id',
});

function requestOf(tableName: string, rlsEnabled: boolean, columns: ColumnRow[]) {
  return {
    tableName,
    rlsEnabled,
    columns: columns.map((c) => ({
      columnName: c.columnName,
      type: c.type,
      isNullable: c.isNullable,
      isUnique: c.isUnique,
      ...(c.isPrimaryKey ? { isPrimaryKey: true } : {}),
      ...(c.defaultValue ? { defaultValue: c.defaultValue } : {}),
    })),
    foreignKeys: columns
      .filter((c) => c.referenceTable)
      .map((c) => ({ columnName: c.columnName, referenceTable: c.referenceTable, referenceColumn: c.referenceColumn })),
  };
}

export function CreateTableForm({ tables, onClose }: { tables: string[]; onClose(): void }) {
  const api = useApi();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [rls, setRls] = useState(true);
  const [columns, setColumns] = useState<ColumnRow[]>([newColumn()]);
  const setColumn = (i: number, change: Partial<ColumnRow>) =>
    setColumns((all) => all.map((c, j) => (j === i ? { ...c, ...change } : c)));

  const create = useMutation({
    mutationFn: () => api.json('/api/database/tables', jsonInit('POST', requestOf(name, rls, columns))),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['metadata'] });
      onClose();
      navigate(`/tables/${encodeURIComponent(name)}`);
    },
  });

  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened onClose={onClose} title="Create a table" size="xl">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput label="Table name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Checkbox
            label="Row-level security on (recommended)"
            checked={rls}
            onChange={(e) => setRls(e.currentTarget.checked)}
          />
          <Text size="sm">id (uuid primary key), created_at and updated_at are added for you.</Text>
          {columns.map((c, i) => {
            const n = i + 1;
            return (
              <Fieldset key={n} legend={`Column ${n}`}>
                <Group align="flex-end" wrap="wrap" gap="xs">
                  <TextInput
                    label={`Column ${n} name`}
                    required
                    value={c.columnName}
                    onChange={(e) => setColumn(i, { columnName: e.currentTarget.value })}
                  />
                  <Autocomplete
                    label={`Column ${n} type`}
                    required
                    data={TYPE_OPTIONS}
                    value={c.type}
                    onChange={(type) => setColumn(i, { type })}
                  />
                  <TextInput
                    label={`Column ${n} default`}
                    value={c.defaultValue}
                    onChange={(e) => setColumn(i, { defaultValue: e.currentTarget.value })}
                  />
                  <NativeSelect
                    label={`Column ${n} references`}
                    value={c.referenceTable}
                    data={[{ value: '', label: '(no foreign key)' }, ...tables]}
                    onChange={(e) => setColumn(i, { referenceTable: e.currentTarget.value })}
                  />
                  {c.referenceTable ? (
                    <TextInput
                      label={`Column ${n} referenced column`}
                      value={c.referenceColumn}
                      onChange={(e) => setColumn(i, { referenceColumn: e.currentTarget.value })}
                    />
                  ) : null}
                  <ActionIcon
                    variant="default"
                    size="lg"
                    aria-label={`Remove column ${n}`}
                    onClick={() => setColumns((all) => all.filter((_, j) => j !== i))}
                  >
                    ×
                  </ActionIcon>
                </Group>
                <Group gap="md" mt="xs">
                  <Checkbox
                    label={`Column ${n} NULL allowed`}
                    checked={c.isNullable}
                    onChange={(e) => setColumn(i, { isNullable: e.currentTarget.checked })}
                  />
                  <Checkbox
                    label={`Column ${n} unique`}
                    checked={c.isUnique}
                    onChange={(e) => setColumn(i, { isUnique: e.currentTarget.checked })}
                  />
                  <Checkbox
                    label={`Column ${n} primary key`}
                    checked={c.isPrimaryKey}
                    onChange={(e) => setColumn(i, { isPrimaryKey: e.currentTarget.checked })}
                  />
                </Group>
              </Fieldset>
            );
          })}
          <Group>
            <Button variant="default" onClick={() => setColumns((all) => [...all, newColumn()])}>
              Add a column
            </Button>
          </Group>
          <ActionError error={create.error} title="The table was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create table
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
