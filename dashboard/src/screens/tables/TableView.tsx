// One table: its rows (virtualised grid with editing), its structure (columns, altering them),
// its indexes and triggers, and its row-level security (policies).
import { Breadcrumbs, Stack, Tabs, Text, Title } from '@mantine/core';
import { Link } from '../../shell/Link';
import { ErrorState, Loading } from '../../shell/states';
import { ObjectsPanel } from './ObjectsPanel';
import { RowsGrid } from './RowsGrid';
import { SecurityPanel } from './SecurityPanel';
import { StructurePanel } from './StructurePanel';
import { useTableSchema } from './tableApi';

export default function TableView({ table }: { table: string }) {
  const schema = useTableSchema(table);
  return (
    <Stack>
      <Breadcrumbs>
        <Link to="/tables">Tables</Link>
        <Text size="sm">{table}</Text>
      </Breadcrumbs>
      <Title order={1} size="h2">
        {table}
      </Title>
      {schema.isPending ? <Loading what={`table ${table}`} /> : null}
      {schema.isError ? <ErrorState error={schema.error} what={`table ${table}`} /> : null}
      {schema.data ? (
        <Tabs defaultValue="rows" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="rows">Rows</Tabs.Tab>
            <Tabs.Tab value="structure">Structure</Tabs.Tab>
            <Tabs.Tab value="objects">Indexes and triggers</Tabs.Tab>
            <Tabs.Tab value="security">Row-level security</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="rows" pt="md">
            <RowsGrid table={table} columns={schema.data.columns} />
          </Tabs.Panel>
          <Tabs.Panel value="structure" pt="md">
            <StructurePanel table={table} columns={schema.data.columns} />
          </Tabs.Panel>
          <Tabs.Panel value="objects" pt="md">
            <ObjectsPanel table={table} />
          </Tabs.Panel>
          <Tabs.Panel value="security" pt="md">
            <SecurityPanel table={table} rlsEnabled={schema.data.rlsEnabled} />
          </Tabs.Panel>
        </Tabs>
      ) : null}
    </Stack>
  );
}
