// Lists shown as tables, described by their columns: RowsTable draws rows already at hand (wide
// ones scroll sideways); QueryTable adds the loading, error and empty states of the API query.
import { Table } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, Loading } from '../shell/states';
import { HorizontalScroll } from './HorizontalScroll';
import type { NextStep } from './next-steps';

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
  align?: 'right';
}

interface RowsTableProps<T> {
  /** The table's accessible name. */
  label: string;
  rows: T[];
  rowKey(row: T): string;
  columns: Column<T>[];
  /** Below this width the table scrolls sideways. */
  minWidth?: number;
}

export function RowsTable<T>({ label, rows, rowKey, columns, minWidth = 640 }: RowsTableProps<T>) {
  return (
    <HorizontalScroll label={label} minWidth={minWidth}>
      <Table aria-label={label} striped verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.header} ta={c.align}>
                {c.header}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.header} ta={c.align}>
                  {c.cell(row)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </HorizontalScroll>
  );
}

interface QueryTableProps<T> extends Omit<RowsTableProps<T>, 'rows'> {
  query: UseQueryResult<T[]>;
  /** What is loading, e.g. "runs" (default: the label). */
  what?: string;
  /** The empty state's title (default "No <label>") and its explanation. */
  emptyTitle?: string;
  empty: ReactNode;
  /** The empty state's next step as snippets. */
  next?: NextStep[];
}

export function QueryTable<T>({ query, what, emptyTitle, empty, next, ...table }: QueryTableProps<T>) {
  const noun = what ?? table.label.toLowerCase();
  if (query.isPending) return <Loading what={noun} />;
  if (query.isError) return <ErrorState error={query.error} what={noun} />;
  if (query.data.length === 0)
    return (
      <EmptyState title={emptyTitle ?? `No ${noun}`} next={next}>
        {empty}
      </EmptyState>
    );
  return <RowsTable rows={query.data} {...table} />;
}
