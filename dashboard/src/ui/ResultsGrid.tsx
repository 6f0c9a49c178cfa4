// Rows of a query in a scrollable grid (TanStack Table): one column per field, in the order the
// server gave them; NULL, JSON and long values shown plainly.
import { Code, ScrollArea, Table, Text } from '@mantine/core';
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useMemo } from 'react';

type Row = Record<string, unknown>;

function Cell({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <Text fs="italic">NULL</Text>;
  if (typeof value === 'object') return <Code>{JSON.stringify(value)}</Code>;
  return <>{String(value)}</>;
}

export function ResultsGrid({ label, fields, rows }: { label: string; fields: string[]; rows: Row[] }) {
  const columns = useMemo<ColumnDef<Row>[]>(
    () =>
      fields.map((name, i) => ({
        id: `${i}:${name}`,
        accessorFn: (row: Row) => row[name],
        header: name,
        cell: (info) => <Cell value={info.getValue()} />,
      })),
    [fields],
  );
  const grid = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  return (
    <ScrollArea.Autosize mah={480} type="auto">
      <Table striped withTableBorder withColumnBorders aria-label={label} stickyHeader>
        <Table.Thead>
          {grid.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => (
                <Table.Th key={header.id} style={{ whiteSpace: 'nowrap' }}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </Table.Th>
              ))}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {grid.getRowModel().rows.map((row) => (
            <Table.Tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}
