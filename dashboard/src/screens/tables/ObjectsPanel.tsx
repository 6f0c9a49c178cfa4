// The indexes and triggers of one table, as the catalog reports them.
import { Badge, Code, Stack, Table, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState, Loading } from '../../shell/states';
import { HorizontalScroll } from '../../ui/HorizontalScroll';
import { type IndexInfo, type TriggerInfo, useTableObjects } from './tableApi';

/** One kind of object: loading, error and empty states, then a table of one row per object. */
function CatalogSection<T>({
  title,
  table,
  objects,
  headers,
  cells,
}: {
  title: string;
  table: string;
  objects: UseQueryResult<T[]>;
  headers: string[];
  cells(item: T): [key: string, ...ReactNode[]];
}) {
  const what = title.toLowerCase();
  return (
    <>
      <Title order={2} size="h4">
        {title}
      </Title>
      {objects.isPending ? <Loading what={what} /> : null}
      {objects.isError ? <ErrorState error={objects.error} what={what} /> : null}
      {objects.data?.length === 0 ? (
        <Text size="sm">
          No {what} on {table}.
        </Text>
      ) : null}
      {objects.data?.length ? (
        <HorizontalScroll label={`${title} of ${table}`}>
          <Table striped miw={500} aria-label={`${title} of ${table}`}>
            <Table.Thead>
              <Table.Tr>
                {headers.map((h) => (
                  <Table.Th key={h}>{h}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {objects.data.map((item) => {
                const [key, ...values] = cells(item);
                return (
                  <Table.Tr key={key}>
                    <Table.Td>{key}</Table.Td>
                    {values.map((value, i) => (
                      <Table.Td key={headers[i + 1]}>{value}</Table.Td>
                    ))}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </>
  );
}

const kindOfIndex = (i: IndexInfo) =>
  i.isPrimary ? <Badge variant="light">primary key</Badge> : i.isUnique ? <Badge variant="light">unique</Badge> : '—';

export function ObjectsPanel({ table }: { table: string }) {
  const indexes = useTableObjects<IndexInfo>('indexes', table);
  const triggers = useTableObjects<TriggerInfo>('triggers', table);
  return (
    <Stack>
      <CatalogSection
        title="Indexes"
        table={table}
        objects={indexes}
        headers={['Index', 'Kind', 'Definition']}
        cells={(i) => [i.indexName, kindOfIndex(i), <Code key="definition">{i.indexDef}</Code>]}
      />
      <CatalogSection
        title="Triggers"
        table={table}
        objects={triggers}
        headers={['Trigger', 'Function', 'Enabled', 'Definition']}
        cells={(t) => [
          t.triggerName,
          t.functionName,
          t.enabled ? 'yes' : 'no',
          <Code key="definition">{t.definition}</Code>,
        ]}
      />
    </Stack>
  );
}
