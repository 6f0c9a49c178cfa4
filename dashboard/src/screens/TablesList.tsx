// Tables: every table of the project with its row count, each opening its grid.
import { Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/context';
import type { ProjectMetadata } from '../api/types';
import { Link } from '../shell/Link';
import { EmptyState, ErrorState, Loading } from '../shell/states';

export default function TablesList() {
  const api = useApi();
  const metadata = useQuery({ queryKey: ['metadata'], queryFn: () => api.json<ProjectMetadata>('/api/metadata') });

  return (
    <Stack>
      <Title order={1} size="h2">
        Tables
      </Title>
      {metadata.isPending ? <Loading what="tables" /> : null}
      {metadata.isError ? <ErrorState error={metadata.error} what="tables" /> : null}
      {metadata.data?.database.tables.length === 0 ? (
        <EmptyState title="No tables yet">
          Create one with POST /api/database/tables or a migration (README "Migrations and the CLI").
        </EmptyState>
      ) : null}
      {metadata.data?.database.tables.length ? (
        <Table striped highlightOnHover aria-label="Tables">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th ta="right">Rows</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {metadata.data.database.tables.map((t) => (
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
    </Stack>
  );
}
