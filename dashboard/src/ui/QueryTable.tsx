// A list the API answers, shown as a table: its loading, error and empty states, then a plain
// table of the columns given.
import { Table } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, Loading } from '../shell/states';
import { HorizontalScroll } from './HorizontalScroll';

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
}

interface QueryTableProps<T> {
  label: string;
  query: UseQueryResult<T[]>;
  rowKey(row: T): string;
  columns: Column<T>[];
  empty: string;
}

export function QueryTable<T>({ label, query, rowKey, columns, empty }: QueryTableProps<T>) {
  if (query.isPending) return <Loading what={label.toLowerCase()} />;
  if (query.isError) return <ErrorState error={query.error} what={label.toLowerCase()} />;
  if (query.data.length === 0) return <EmptyState title={`No ${label.toLowerCase()}`}>{empty}</EmptyState>;
  return (
    <HorizontalScroll label={label} minWidth={640}>
      <Table aria-label={label} striped>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.header}>{c.header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {query.data.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.header}>{c.cell(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </HorizontalScroll>
  );
}
