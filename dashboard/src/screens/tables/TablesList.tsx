// Tables: every table of the project with its row count, each opening its own view; and creating
// a table.
import { Button, Group, Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import type { ProjectMetadata } from '../../api/types';
import { Link } from '../../shell/Link';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { CreateTableForm } from './CreateTableForm';

export default function TablesList() {
  const api = useApi();
  const [creating, setCreating] = useState(false);
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });
  const tables = metadata.data?.database.tables ?? [];

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
        <EmptyState title="No tables yet">Create one with the Create table button, or with a migration.</EmptyState>
      ) : null}
      {tables.length ? (
        <Table striped highlightOnHover aria-label="Tables">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th ta="right">Rows</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tables.map((t) => (
              <Table.Tr key={t.name}>
                <Table.Td>
                  <Link to={`/tables/${encodeURIComponent(t.name)}`}>{t.name}</Link>
                </Table.Td>
                <Table.Td ta="right">{t.recordCount}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {creating ? <CreateTableForm tables={tables.map((t) => t.name)} onClose={() => setCreating(false)} /> : null}
    </Stack>
  );
}
