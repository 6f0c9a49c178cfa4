// The grid's server-side filters: pick a column, an operator and a value; each active filter is a
// badge with a remove button.
import { ActionIcon, Badge, Button, Group, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import { type Filter, OPERATORS, takesValue } from './rowQuery';
import type { ColumnInfo } from './tableApi';

const labelOf = (f: Filter) => `${f.column} ${f.operator}${takesValue(f.operator) ? ` ${f.value}` : ''}`;

export function FilterBar({
  columns,
  filters,
  onChange,
}: {
  columns: ColumnInfo[];
  filters: Filter[];
  onChange(filters: Filter[]): void;
}) {
  const [column, setColumn] = useState(columns[0]?.columnName ?? '');
  const [operator, setOperator] = useState<Filter['operator']>('eq');
  const [value, setValue] = useState('');

  const add = () => {
    const filter = { column, operator, value: takesValue(operator) ? value : '' };
    if (!column || filters.some((f) => labelOf(f) === labelOf(filter))) return;
    onChange([...filters, filter]);
    setValue('');
  };

  return (
    <Group align="flex-end" gap="xs" wrap="wrap">
      <NativeSelect
        label="Filter column"
        value={column}
        onChange={(e) => setColumn(e.currentTarget.value)}
        data={columns.map((c) => c.columnName)}
      />
      <NativeSelect
        label="Operator"
        value={operator}
        onChange={(e) => setOperator(e.currentTarget.value as Filter['operator'])}
        data={OPERATORS.map((o) => ({ value: o.value, label: o.label }))}
      />
      {takesValue(operator) ? (
        <TextInput
          label="Filter value"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') add();
          }}
        />
      ) : null}
      <Button variant="default" onClick={add}>
        Add filter
      </Button>
      {filters.map((f, i) => {
        const text = labelOf(f);
        return (
          <Badge
            key={text}
            variant="light"
            size="lg"
            rightSection={
              <ActionIcon
                size="xs"
                variant="transparent"
                aria-label={`Remove filter ${text}`}
                onClick={() => onChange(filters.filter((_, j) => j !== i))}
              >
                ×
              </ActionIcon>
            }
          >
            {text}
          </Badge>
        );
      })}
    </Group>
  );
}
