// Tables: every table of the project with its row count, size and index use (from
// /api/insights/tables), each opening its own view; and creating a table.
import { Button, Group, Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import type { ProjectMetadata } from '../../api/types';
import { Link } from '../../shell/Link';
import { formatBytes } from '../../ui/format';
import type { TableInsights } from '../overview/insights-types';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { CreateTableForm } from './CreateTableForm';
import { nextSteps } from '../../ui/next-steps';

export default function TablesList() {
  const api = useApi();
  const [creating, setCreating] = useState(false);
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });
  const tables = metadata.data?.database.tables ?? [];
  const insights = useQuery({
    queryKey: ['insights', 'tables'],
    queryFn: () => api.json<{ tables: TableInsights[] }>('/api/insights/tables'),
  });
  const statsOf = new Map((insights.data?.tables ?? []).map((t) => [t.table, t]));
  /** Reads by index out of all reads since statistics were reset ('—' before any read). */
  const indexShare = (t: TableInsights | undefined) => {
    const reads = t ? t.indexScans + t.seqScans : 0;
    return t && reads > 0 ? `${Math.round((t.indexScans / reads) * 100)} %` : '—';
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Tables
        </Title>
        <Button onClick={() => setCreating(true)}>Create table</Button>
      </Group>
      {metadata.isPending ? <Loading what="tables" /> : null}
      {metadata.isError ? <ErrorState error={metadata.error} what="tables" /> : null}
      {metadata.data && tables.length === 0 ? (
        <EmptyState title="No tables yet" next={nextSteps.tables()}>
          Create one with the Create table button, or with a migration from your app's folder:
        </EmptyState>
      ) : null}
      {tables.length ? (
        <Table striped highlightOnHover aria-label="Tables">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th ta="right">Rows</Table.Th>
              <Table.Th ta="right">Size</Table.Th>
              <Table.Th ta="right">Reads by index</Table.Th>
              <Table.Th ta="right">Indexes</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tables.map((t) => (
              <Table.Tr key={t.name}>
                <Table.Td>
                  <Link to={`/tables/${encodeURIComponent(t.name)}`}>{t.name}</Link>
                </Table.Td>
                <Table.Td ta="right">{t.recordCount}</Table.Td>
                <Table.Td ta="right">{formatBytes(statsOf.get(t.name)?.bytes)}</Table.Td>
                <Table.Td ta="right">{indexShare(statsOf.get(t.name))}</Table.Td>
                <Table.Td
                  ta="right"
                  title={statsOf
                    .get(t.name)
                    ?.indexes.map((i) => `${i.name}: ${i.scans} scans`)
                    .join('\n')}
                >
                  {statsOf.get(t.name)?.indexes.length ?? '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {creating ? <CreateTableForm tables={tables.map((t) => t.name)} onClose={() => setCreating(false)} /> : null}
    </Stack>
  );
}
