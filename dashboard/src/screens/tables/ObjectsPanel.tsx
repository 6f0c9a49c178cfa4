// The indexes and triggers of one table, as the catalog reports them.
import { Badge, Code, Stack, Table, Text, Title } from '@mantine/core';
import { ErrorState, Loading } from '../../shell/states';
import { type IndexInfo, type TriggerInfo, useTableObjects } from './tableApi';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

export function ObjectsPanel({ table }: { table: string }) {
  const indexes = useTableObjects<IndexInfo>('indexes', table);
  const triggers = useTableObjects<TriggerInfo>('triggers', table);
  return (
    <Stack>
      <Title order={2} size="h4">
        Indexes
      </Title>
      {indexes.isPending ? <Loading what="indexes" /> : null}
      {indexes.isError ? <ErrorState error={indexes.error} what="indexes" /> : null}
      {indexes.data?.length === 0 ? <Text size="sm">No indexes on {table}.</Text> : null}
      {indexes.data?.length ? (
        <HorizontalScroll label={`Indexes of ${table}`}>
          <Table striped miw={500} aria-label={`Indexes of ${table}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Index</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Definition</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {indexes.data.map((i) => (
                <Table.Tr key={i.indexName}>
                  <Table.Td>{i.indexName}</Table.Td>
                  <Table.Td>
                    {i.isPrimary ? (
                      <Badge variant="light">primary key</Badge>
                    ) : i.isUnique ? (
                      <Badge variant="light">unique</Badge>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Code>{i.indexDef}</Code>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
      <Title order={2} size="h4">
        Triggers
      </Title>
      {triggers.isPending ? <Loading what="triggers" /> : null}
      {triggers.isError ? <ErrorState error={triggers.error} what="triggers" /> : null}
      {triggers.data?.length === 0 ? <Text size="sm">No triggers on {table}.</Text> : null}
      {triggers.data?.length ? (
        <HorizontalScroll label={`Triggers of ${table}`}>
          <Table striped miw={500} aria-label={`Triggers of ${table}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Trigger</Table.Th>
                <Table.Th>Function</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>Definition</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {triggers.data.map((t) => (
                <Table.Tr key={t.triggerName}>
                  <Table.Td>{t.triggerName}</Table.Td>
                  <Table.Td>{t.functionName}</Table.Td>
                  <Table.Td>{t.enabled ? 'yes' : 'no'}</Table.Td>
                  <Table.Td>
                    <Code>{t.definition}</Code>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </Stack>
  );
}
