// A user's identities (sign-in methods): the password and each linked provider account.
import { Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { Time } from '../../ui/Time';
import { usersApi } from './users-api';

export function UserIdentities({ userId }: { userId: string }) {
  const api = usersApi(useApi());
  const identities = useQuery({ queryKey: ['users', 'identities', userId], queryFn: () => api.identities(userId) });
  const list = identities.data?.data;

  return (
    <Stack component="section" aria-labelledby="identities-heading">
      <Title order={2} size="h3" id="identities-heading">
        Identities
      </Title>
      {identities.isPending ? <Loading what="identities" /> : null}
      {identities.isError ? <ErrorState error={identities.error} what="identities" /> : null}
      {list?.length === 0 ? (
        <EmptyState title="No identities">An anonymous user signs in with its session only.</EmptyState>
      ) : null}
      {list?.length ? (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="Identities">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Provider</Table.Th>
                <Table.Th>Account</Table.Th>
                <Table.Th>Linked</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((identity) => (
                <Table.Tr key={identity.id}>
                  <Table.Td>{identity.id === 'password' ? 'email (password)' : identity.provider}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    {identity.email ?? identity.providerAccountId}
                  </Table.Td>
                  <Table.Td>
                    <Time iso={identity.createdAt} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
    </Stack>
  );
}
