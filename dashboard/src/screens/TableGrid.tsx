// One table's rows, read-only: server-side sort (click a column header) and pagination through
// the records API (PostgREST grammar: limit, offset, order; the total from Content-Range).
import { Button, Code, Group, ScrollArea, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ColumnDef, flexRender, getCoreRowModel, type SortingState, useReactTable } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useApi } from '../api/context';
import type { TableMetadata } from '../api/types';
import { Link } from '../shell/Link';
import { EmptyState, ErrorState, Loading } from '../shell/states';

const PAGE_SIZE = 25;
type Row = Record<string, unknown>;

/** "0-24/60" → 60; "* /0" → 0. */
const totalOf = (contentRange: string | null) => Number(contentRange?.split('/')[1] ?? 0) || 0;

function Cell({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <Text c="dimmed">NULL</Text>;
  if (typeof value === 'object') return <Code>{JSON.stringify(value)}</Code>;
  return <>{String(value)}</>;
}

export default function TableGrid({ table }: { table: string }) {
  const api = useApi();
  const [page, setPage] = useState(0);
  const [sorting, setSorting] = useState<SortingState>([]);
  const path = encodeURIComponent(table);

  const metadata = useQuery({
    queryKey: ['metadata', table],
    queryFn: () => api.json<TableMetadata>(`/api/metadata/${path}`),
  });
  const columnsMeta = metadata.data?.columns;
  // Without a chosen sort the primary key orders the rows, so pages do not overlap.
  const order = sorting[0]
    ? `${sorting[0].id}.${sorting[0].desc ? 'desc' : 'asc'}`
    : columnsMeta
        ?.filter((c) => c.isPrimaryKey)
        .map((c) => `${c.columnName}.asc`)
        .join(',') || undefined;

  const rows = useQuery({
    queryKey: ['records', table, page, order],
    enabled: columnsMeta !== undefined,
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(page * PAGE_SIZE) });
      if (order) query.set('order', order);
      const res = await api.request(`/api/database/records/${path}?${query}`, { headers: { prefer: 'count=exact' } });
      return { rows: (await res.json()) as Row[], total: totalOf(res.headers.get('content-range')) };
    },
  });

  const columns = useMemo<ColumnDef<Row>[]>(
    () =>
      (columnsMeta ?? []).map((c) => ({
        id: c.columnName,
        accessorFn: (row: Row) => row[c.columnName],
        header: c.columnName,
        meta: c.type,
        cell: (info) => <Cell value={info.getValue()} />,
      })),
    [columnsMeta],
  );

  const grid = useReactTable({
    data: rows.data?.rows ?? [],
    columns,
    state: { sorting },
    manualSorting: true,
    manualPagination: true,
    enableMultiSort: false,
    sortDescFirst: false,
    onSortingChange: (updater) => {
      setSorting(updater);
      setPage(0);
    },
    getCoreRowModel: getCoreRowModel(),
  });

  const total = rows.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const first = total === 0 ? 0 : page * PAGE_SIZE + 1;
  const last = Math.min(total, (page + 1) * PAGE_SIZE);

  return (
    <Stack>
      <Text size="sm">
        <Link to="/tables">Tables</Link> / {table}
      </Text>
      <Title order={1} size="h2">
        {table}
      </Title>
      {metadata.isPending || rows.isPending ? <Loading what={`rows of ${table}`} /> : null}
      {metadata.isError ? <ErrorState error={metadata.error} what={`table ${table}`} /> : null}
      {rows.isError ? <ErrorState error={rows.error} what={`rows of ${table}`} /> : null}
      {rows.data && total === 0 ? <EmptyState title="No rows">This table has no rows yet.</EmptyState> : null}
      {rows.data && total > 0 ? (
        <>
          <ScrollArea type="auto">
            <Table striped withTableBorder aria-label={`Rows of ${table}`} aria-busy={rows.isFetching}>
              <Table.Thead>
                {grid.getHeaderGroups().map((group) => (
                  <Table.Tr key={group.id}>
                    {group.headers.map((header) => {
                      const sorted = header.column.getIsSorted();
                      return (
                        <Table.Th
                          key={header.id}
                          aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                        >
                          <UnstyledButton onClick={header.column.getToggleSortingHandler()} fw={700}>
                            {flexRender(header.column.columnDef.header, header.getContext())}
                            {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                          </UnstyledButton>
                        </Table.Th>
                      );
                    })}
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
          </ScrollArea>
          <Group justify="space-between">
            <Text size="sm" aria-live="polite">
              Rows {first}–{last} of {total} · page {page + 1} of {pages}
            </Text>
            <Group gap="xs">
              <Button variant="default" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
                Previous page
              </Button>
              <Button variant="default" disabled={page + 1 >= pages} onClick={() => setPage((p) => p + 1)}>
                Next page
              </Button>
            </Group>
          </Group>
        </>
      ) : null}
    </Stack>
  );
}
