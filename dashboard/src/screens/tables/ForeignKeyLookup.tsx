// Finds a row of the table a foreign key references: searches its text columns (ilike) or its key
// (eq), and sets the key of the row the admin picks.
import { Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { type ForeignKeyInfo, type Row, recordsPath, useTableSchema } from './tableApi';
import { cellText } from './valueCodec';

const TEXT_TYPES = ['text', 'character varying', 'character', 'citext'];

export function ForeignKeyLookup({
  foreignKey,
  column,
  onPick,
}: {
  foreignKey: ForeignKeyInfo;
  column: string;
  onPick(value: string): void;
}) {
  const api = useApi();
  const [search, setSearch] = useState('');
  const inPublic = !foreignKey.referenceTable.includes('.');
  const referenced = useTableSchema(foreignKey.referenceTable, inPublic);
  const textColumns = (referenced.data?.columns ?? [])
    .filter((c) => TEXT_TYPES.some((t) => c.type.startsWith(t)))
    .map((c) => c.columnName);
  const term = search.replace(/[,()"*\\]/g, '').trim();

  const rows = useQuery({
    queryKey: ['fk-lookup', foreignKey.referenceTable, term, textColumns.join()],
    enabled: referenced.data !== undefined,
    queryFn: () => {
      const params = new URLSearchParams({ limit: '20' });
      if (term && textColumns.length)
        params.set('or', `(${textColumns.map((c) => `${c}.ilike."*${term}*"`).join(',')})`);
      else if (term) params.set(foreignKey.referenceColumn, `eq.${term}`);
      return api.json<Row[]>(`${recordsPath(foreignKey.referenceTable)}?${params}`);
    },
  });

  if (!inPublic) return null;
  const options = (rows.data ?? []).map((row) => {
    const key = cellText(row[foreignKey.referenceColumn]);
    const label = textColumns[0] ? `${cellText(row[textColumns[0]])} (${key})` : key;
    return { value: key, label };
  });

  return (
    <Select
      label={`Look up ${column} in ${foreignKey.referenceTable}`}
      placeholder={`Search ${foreignKey.referenceTable}`}
      searchable
      clearable
      value={null}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
      nothingFoundMessage={rows.isFetching ? 'Searching…' : 'No matching rows'}
      data={options}
      onChange={(value) => {
        if (value !== null) onPick(value);
        setSearch('');
      }}
    />
  );
}
