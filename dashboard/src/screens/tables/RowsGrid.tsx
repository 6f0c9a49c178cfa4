// One table's rows: server-side filters and sort (a link may bring filters: ?column=op.value), a
// virtualised grid that fetches the pages it scrolls to (smooth at 100,000 rows), column types in
// the headers, cells from GridCell, and inserting, editing and deleting rows (confirmed).
import { Button, Group, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState } from '../../shell/states';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { FilterBar } from './FilterBar';
import { GridCell } from './GridCell';
import { RowEditor } from './RowEditor';
import { type Filter, filtersOfUrl, keyFilter, rowQuery, type Sort } from './rowQuery';
import { type ColumnInfo, type Row, recordsPath } from './tableApi';
import { useRowPages } from './useRowPages';
import { nextSteps } from '../../ui/next-steps';

const ROW_HEIGHT = 37;
const cellStyle = {
  whiteSpace: 'nowrap',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  maxWidth: 260,
  height: ROW_HEIGHT,
} as const;

export function RowsGrid({ table, columns }: { table: string; columns: ColumnInfo[] }) {
  const api = useApi();
  const queries = useQueryClient();
  const [filters, setFilters] = useState<Filter[]>(() => filtersOfUrl(window.location.search, columns));
  const [sort, setSort] = useState<Sort | null>(null);
  const [editing, setEditing] = useState<Row | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  /** The cell under the pointer or holding focus ("row:column"): it shows a copy button. */
  const [activeCell, setActiveCell] = useState<string | null>(null);
  const scroller = useRef<HTMLElement>(null);
  const query = useMemo(() => rowQuery(filters, sort, columns), [filters, sort, columns]);
  const editable = columns.some((c) => c.isPrimaryKey);

  const [range, setRange] = useState({ first: 0, last: 0 });
  const rows = useRowPages(table, query, range.first, range.last);
  const total = rows.total ?? 0;
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    onChange: (v) => {
      const items = v.getVirtualItems();
      const first = items[0]?.index ?? 0;
      const last = items[items.length - 1]?.index ?? 0;
      setRange((r) => (r.first === first && r.last === last ? r : { first, last }));
    },
  });
  const items = virtualizer.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);

  const changeQuery = (apply: () => void) => {
    apply();
    scroller.current?.scrollTo({ top: 0 });
  };
  const toggleSort = (column: string) =>
    changeQuery(() =>
      setSort((s) =>
        s?.column !== column ? { column, descending: false } : s.descending ? null : { column, descending: true },
      ),
    );

  const remove = useMutation({
    mutationFn: async (row: Row) => {
      const filter = keyFilter(row, columns);
      if (!filter) throw new Error('This table has no primary key.');
      await api.request(`${recordsPath(table)}?${filter}`, { method: 'DELETE' });
    },
    onSuccess: async () => {
      setDeleting(null);
      await queries.invalidateQueries({ queryKey: ['rows', table] });
      await queries.invalidateQueries({ queryKey: ['metadata'] });
    },
  });

  return (
    <Stack>
      <FilterBar columns={columns} filters={filters} onChange={(f) => changeQuery(() => setFilters(f))} />
      <Group justify="space-between">
        <Text size="sm" aria-live="polite">
          {rows.total === undefined
            ? 'Counting rows…'
            : `${total} ${total === 1 ? 'row' : 'rows'}${filters.length ? (total === 1 ? ' matches the filters' : ' match the filters') : ''}`}
        </Text>
        <Button onClick={() => setEditing('new')}>Insert row</Button>
      </Group>
      {rows.error ? <ErrorState error={rows.error} what={`rows of ${table}`} /> : null}
      {rows.total === 0 ? (
        <EmptyState title="No rows" next={filters.length ? undefined : nextSteps.rows(table)}>
          {filters.length ? 'No row matches the filters.' : 'This table has no rows yet.'}
        </EmptyState>
      ) : null}
      <section
        ref={scroller}
        aria-label={`Scrollable rows of ${table}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region takes focus so the keyboard can scroll it
        tabIndex={0}
        style={{ height: 'min(60vh, 560px)', overflow: 'auto', display: total ? undefined : 'none' }}
      >
        <Table
          stickyHeader
          striped
          withTableBorder
          aria-label={`Rows of ${table}`}
          aria-busy={rows.fetching}
          aria-rowcount={total + 1}
        >
          <Table.Thead>
            <Table.Tr>
              <Table.Th>
                <Text size="sm" fw={700}>
                  Actions
                </Text>
              </Table.Th>
              {columns.map((c) => {
                const sorted = sort?.column === c.columnName ? (sort.descending ? 'descending' : 'ascending') : 'none';
                return (
                  <Table.Th key={c.columnName} aria-sort={sorted} style={{ whiteSpace: 'nowrap' }}>
                    <UnstyledButton fw={700} onClick={() => toggleSort(c.columnName)}>
                      {c.columnName}
                      {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
                    </UnstyledButton>
                    <Text size="xs" c="dimmed">
                      {c.type}
                      {c.foreignKey ? ` → ${c.foreignKey.referenceTable}` : ''}
                    </Text>
                  </Table.Th>
                );
              })}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {top > 0 ? (
              <tr>
                <td colSpan={columns.length + 1} style={{ height: top, padding: 0, border: 0 }} />
              </tr>
            ) : null}
            {items.map((item) => {
              const row = rows.rowAt(item.index);
              return (
                <Table.Tr key={item.key} aria-rowindex={item.index + 2}>
                  <Table.Td style={cellStyle}>
                    {row && editable ? (
                      <Group gap={4} wrap="nowrap">
                        <Button
                          size="compact-xs"
                          variant="default"
                          onClick={() => setEditing(row)}
                          aria-label={`Edit row ${item.index + 1}`}
                        >
                          Edit
                        </Button>
                        <Button
                          size="compact-xs"
                          variant="default"
                          color="red"
                          onClick={() => setDeleting(row)}
                          aria-label={`Delete row ${item.index + 1}`}
                        >
                          Delete
                        </Button>
                      </Group>
                    ) : null}
                  </Table.Td>
                  {columns.map((c) => (
                    <Table.Td
                      key={c.columnName}
                      style={cellStyle}
                      onMouseEnter={() => setActiveCell(`${item.index}:${c.columnName}`)}
                      onMouseLeave={() => setActiveCell(null)}
                      onFocus={() => setActiveCell(`${item.index}:${c.columnName}`)}
                    >
                      {row ? (
                        <GridCell
                          column={c}
                          value={row[c.columnName]}
                          active={activeCell === `${item.index}:${c.columnName}`}
                        />
                      ) : (
                        <Text span fs="italic" size="sm">
                          …
                        </Text>
                      )}
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
            {bottom > 0 ? (
              <tr>
                <td colSpan={columns.length + 1} style={{ height: bottom, padding: 0, border: 0 }} />
              </tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </section>
      {editing ? (
        <RowEditor
          table={table}
          columns={columns}
          row={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this row?"
        confirmLabel="Delete row"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        The row {deleting ? keyFilter(deleting, columns) : ''} is deleted from {table} for good.
      </ConfirmDialog>
    </Stack>
  );
}
