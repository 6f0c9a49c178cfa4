// One column's input in the row editor, by type: JSON and arrays in a validated textarea,
// timestamps as date-time inputs (UTC), booleans and enums as selects, foreign keys with a lookup,
// numbers and text as text; nullable columns have a NULL switch.
import { Checkbox, Group, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { ForeignKeyLookup } from './ForeignKeyLookup';
import type { ColumnInfo } from './tableApi';
import { fromInputText, kindOf } from './valueCodec';

export interface FieldState {
  text: string;
  isNull: boolean;
  /** Changed by the admin (only those fields are sent). */
  touched: boolean;
}

export function ValueInput({
  column,
  state,
  onChange,
}: {
  column: ColumnInfo;
  state: FieldState;
  onChange(state: FieldState): void;
}) {
  const kind = kindOf(column);
  const label = `${column.columnName} (${column.type})`;
  const set = (text: string) => onChange({ text, isNull: false, touched: true });
  const parsed = state.touched && !state.isNull && state.text !== '' ? fromInputText(kind, state.text) : null;
  const error = parsed && !parsed.ok ? parsed.error : undefined;
  const hint = column.defaultValue ? `Leave empty for the default: ${column.defaultValue}` : undefined;
  const common = { label, description: hint, error, disabled: state.isNull };

  const input = (() => {
    switch (kind) {
      case 'json':
      case 'array':
        return (
          <Textarea
            {...common}
            autosize
            minRows={2}
            styles={{ input: { fontFamily: 'monospace' } }}
            value={state.text}
            onChange={(e) => set(e.currentTarget.value)}
          />
        );
      case 'boolean':
        return (
          <NativeSelect
            {...common}
            value={state.text}
            onChange={(e) => set(e.currentTarget.value)}
            data={[{ value: '', label: '(not set)' }, 'true', 'false']}
          />
        );
      case 'enum':
        return (
          <NativeSelect
            {...common}
            value={state.text}
            onChange={(e) => set(e.currentTarget.value)}
            data={[{ value: '', label: '(not set)' }, ...(column.enumValues ?? [])]}
          />
        );
      case 'datetime':
      case 'timestamp':
        return (
          <TextInput
            {...common}
            type="datetime-local"
            step={1}
            label={kind === 'datetime' ? `${label}, UTC` : label}
            value={state.text}
            onChange={(e) => set(e.currentTarget.value)}
          />
        );
      case 'date':
        return <TextInput {...common} type="date" value={state.text} onChange={(e) => set(e.currentTarget.value)} />;
      default:
        return <TextInput {...common} value={state.text} onChange={(e) => set(e.currentTarget.value)} />;
    }
  })();

  return (
    <Stack gap={4}>
      {input}
      <Group gap="md">
        {column.isNullable ? (
          <Checkbox
            size="xs"
            label={`${column.columnName} is NULL`}
            checked={state.isNull}
            onChange={(e) => onChange({ text: state.text, isNull: e.currentTarget.checked, touched: true })}
          />
        ) : null}
      </Group>
      {column.foreignKey && !state.isNull ? (
        <ForeignKeyLookup foreignKey={column.foreignKey} column={column.columnName} onPick={set} />
      ) : null}
    </Stack>
  );
}
