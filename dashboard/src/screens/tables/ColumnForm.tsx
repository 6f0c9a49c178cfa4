// A column's definition in a dialog (add or change): name, type (friendly or any SQL type),
// default (a SQL expression), NULL allowed, unique (when adding).
import { Autocomplete, Button, Checkbox, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { ActionError } from '../../ui/ActionError';
import { TYPE_OPTIONS } from './typeOptions';

export interface ColumnDraft {
  columnName: string;
  type: string;
  defaultValue: string;
  isNullable: boolean;
  isUnique: boolean;
}

const NEW_COLUMN: ColumnDraft = { columnName: '', type: 'string', defaultValue: '', isNullable: true, isUnique: false };

export function ColumnForm({
  title,
  initial = NEW_COLUMN,
  adding,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  initial?: ColumnDraft;
  adding: boolean;
  busy: boolean;
  error: unknown;
  onSubmit(draft: ColumnDraft): void;
  onClose(): void;
}) {
  const [draft, setDraft] = useState(initial);
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened onClose={onClose} title={title}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(draft);
        }}
      >
        <Stack>
          <TextInput
            label="Column name"
            required
            value={draft.columnName}
            onChange={(e) => setDraft({ ...draft, columnName: e.currentTarget.value })}
          />
          <Autocomplete
            label="Type"
            required
            data={TYPE_OPTIONS}
            value={draft.type}
            onChange={(type) => setDraft({ ...draft, type })}
          />
          <TextInput
            label="Default (SQL expression)"
            description="Empty: no default"
            value={draft.defaultValue}
            onChange={(e) => setDraft({ ...draft, defaultValue: e.currentTarget.value })}
          />
          <Checkbox
            label="NULL allowed"
            checked={draft.isNullable}
            onChange={(e) => setDraft({ ...draft, isNullable: e.currentTarget.checked })}
          />
          {adding ? (
            <Checkbox
              label="Unique"
              checked={draft.isUnique}
              onChange={(e) => setDraft({ ...draft, isUnique: e.currentTarget.checked })}
            />
          ) : null}
          <ActionError error={error} title="The table was not changed" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {adding ? 'Add column' : 'Save column'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
