// Every function with its status, version, whether it demands a JWT, and the runtime's state.
import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { StatusBadge } from '../../ui/StatusBadge';
import { Link } from '../../shell/Link';
import { hrefOf, navigate } from '../../shell/route';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { type FunctionList, NEW_FUNCTION } from './types';
import { nextSteps } from '../../ui/next-steps';

export default function FunctionsList() {
  const api = useApi();
  const list = useQuery({ queryKey: ['functions'], queryFn: () => api.json<FunctionList>('/api/functions') });
  const newPath = `/functions/${NEW_FUNCTION}`;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Functions
        </Title>
        <Button
          component="a"
          href={hrefOf(newPath)}
          onClick={(event) => {
            event.preventDefault();
            navigate(newPath);
          }}
        >
          New function
        </Button>
      </Group>
      {list.data ? (
        <Text size="sm">
          Runtime:{' '}
          <StatusBadge tone={list.data.runtime.status === 'running' ? 'good' : 'bad'}>
            {list.data.runtime.status}
          </StatusBadge>
        </Text>
      ) : null}
      {list.isPending ? <Loading what="functions" /> : null}
      {list.isError ? <ErrorState error={list.error} what="functions" /> : null}
      {list.data?.functions.length === 0 ? (
        <EmptyState title="No functions yet" next={nextSteps.functions()}>
          Write one with “New function” (it deploys when you save it), or deploy a file from your app's folder:
        </EmptyState>
      ) : null}
      {list.data?.functions.length ? (
        <Table.ScrollContainer minWidth={340}>
          <Table striped highlightOnHover aria-label="Functions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Slug</Table.Th>
                <Table.Th visibleFrom="sm">Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>JWT</Table.Th>
                <Table.Th ta="right">Version</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.functions.map((fn) => (
                <Table.Tr key={fn.slug}>
                  <Table.Td>
                    <Link to={`/functions/${encodeURIComponent(fn.slug)}`}>{fn.slug}</Link>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{fn.name}</Table.Td>
                  <Table.Td>
                    <StatusBadge tone={fn.status === 'active' ? 'good' : fn.status === 'error' ? 'bad' : 'neutral'}>
                      {fn.status}
                    </StatusBadge>
                  </Table.Td>
                  <Table.Td>{fn.verifyJwt ? 'required' : 'not required'}</Table.Td>
                  <Table.Td ta="right">{fn.version}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
    </Stack>
  );
}
