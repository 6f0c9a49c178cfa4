// Inserts a row, or edits one (found by its primary key), through the admin record editor: one
// type-aware input per column; only the fields the admin changed are sent.
import { Button, Group, Modal, Stack } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { keyFilter } from './rowQuery';
import { type ColumnInfo, jsonInit, type Row, recordsPath } from './tableApi';
import { type FieldState, ValueInput } from './ValueInput';
import { fromInputText, kindOf, toInputText } from './valueCodec';

const initialState = (columns: ColumnInfo[], row: Row | null): Record<string, FieldState> =>
  Object.fromEntries(
    columns.map((c) => [
      c.columnName,
      {
        text: row ? toInputText(kindOf(c), row[c.columnName]) : '',
        isNull: row ? row[c.columnName] === null : false,
        touched: false,
      },
    ]),
  );

/** The body to send, or the first invalid field. */
function bodyOf(columns: ColumnInfo[], fields: Record<string, FieldState>): { body: Row } | { error: string } {
  const body: Row = {};
  for (const column of columns) {
    const field = fields[column.columnName];
    if (!field?.touched) continue;
    if (field.isNull) {
      body[column.columnName] = null;
      continue;
    }
    const kind = kindOf(column);
    if (field.text === '' && kind !== 'text') continue;
    const parsed = fromInputText(kind, field.text);
    if (!parsed.ok) return { error: `${column.columnName}: ${parsed.error}` };
    body[column.columnName] = parsed.value;
  }
  return { body };
}

export function RowEditor({
  table,
  columns,
  row,
  onClose,
}: {
  table: string;
  columns: ColumnInfo[];
  /** null: a new row. */
  row: Row | null;
  onClose(): void;
}) {
  const api = useApi();
  const queries = useQueryClient();
  const [fields, setFields] = useState(() => initialState(columns, row));

  const save = useMutation({
    mutationFn: async () => {
      const result = bodyOf(columns, fields);
      if ('error' in result) throw new Error(result.error);
      const prefer = { prefer: 'return=representation' };
      if (!row) return api.json<Row[]>(recordsPath(table), jsonInit('POST', result.body, prefer));
      const filter = keyFilter(row, columns);
      if (!filter) throw new Error('This table has no primary key: rows cannot be told apart to edit one.');
      if (Object.keys(result.body).length === 0) return [];
      return api.json<Row[]>(`${recordsPath(table)}?${filter}`, jsonInit('PATCH', result.body, prefer));
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['rows', table] });
      await queries.invalidateQueries({ queryKey: ['metadata'] });
      onClose();
    },
  });

  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened
      onClose={onClose}
      title={row ? `Edit row of ${table}` : `Insert a row into ${table}`}
      size="lg"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          {columns.map((column) => (
            <ValueInput
              key={column.columnName}
              column={column}
              state={fields[column.columnName] as FieldState}
              onChange={(state) => setFields((all) => ({ ...all, [column.columnName]: state }))}
            />
          ))}
          <ActionError error={save.error} title="The row was not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {row ? 'Save row' : 'Insert row'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
