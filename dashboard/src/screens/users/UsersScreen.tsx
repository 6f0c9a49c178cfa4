// Users: search by email or name, page through the results, and create a user; each row opens
// the user's page (sessions, reset email, delete).
import { Badge, Button, Group, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { CreateUserModal } from './CreateUserModal';
import { Time } from '../../ui/Time';
import { type AnonymousFilter, PAGE_SIZE, usersApi } from './users-api';
import { nextSteps } from '../../ui/next-steps';

export default function UsersScreen() {
  const api = usersApi(useApi());
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const [anonymous, setAnonymous] = useState<AnonymousFilter>('all');
  const [creating, { open, close }] = useDisclosure(false);
  const users = useQuery({
    queryKey: ['users', 'list', debounced, offset, anonymous],
    queryFn: () => api.list(debounced, offset, anonymous),
    placeholderData: keepPreviousData,
  });
  const page = users.data;
  const total = page?.pagination.total ?? 0;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Users
        </Title>
        <Button onClick={open}>Create user</Button>
      </Group>
      <TextInput
        label="Search users"
        description="By email or name"
        type="search"
        value={search}
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          setOffset(0);
        }}
      />
      <SegmentedControl
        aria-label="Show users"
        value={anonymous}
        onChange={(v) => {
          setAnonymous(v as AnonymousFilter);
          setOffset(0);
        }}
        data={[
          { value: 'all', label: 'All users' },
          { value: 'true', label: 'Anonymous' },
          { value: 'false', label: 'With an account' },
        ]}
      />
      {users.isPending ? <Loading what="users" /> : null}
      {users.isError ? <ErrorState error={users.error} what="users" /> : null}
      {page && page.data.length === 0 ? (
        <EmptyState
          title={debounced ? 'No user matches' : 'No users yet'}
          next={debounced ? undefined : nextSteps.users()}
        >
          {debounced
            ? `Nobody's email or name contains “${debounced}”.`
            : 'Create one with the button above, or sign up from your app with the official client:'}
        </EmptyState>
      ) : null}
      {page && page.data.length > 0 ? (
        <>
          <Table.ScrollContainer minWidth={560}>
            <Table striped highlightOnHover aria-label="Users">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Verified</Table.Th>
                  <Table.Th>Providers</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data.map((user) => (
                  <Table.Tr key={user.id}>
                    <Table.Td>
                      <Link to={`/users/${user.id}`}>{user.email ?? 'Anonymous user'}</Link>
                      {user.isAnonymous ? (
                        <Badge ml="xs" color="grape.9">
                          Anonymous
                        </Badge>
                      ) : null}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={user.emailVerified ? 'teal.9' : 'gray.8'}>
                        {user.emailVerified ? 'Verified' : 'Unverified'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{user.providers.join(', ') || '—'}</Table.Td>
                    <Table.Td>
                      <Time iso={user.createdAt} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="space-between">
            <Text size="sm" aria-live="polite">
              Users {offset + 1}–{offset + page.data.length} of {total}
            </Text>
            <Group gap="xs">
              <Button
                variant="default"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
              >
                Previous page
              </Button>
              <Button
                variant="default"
                disabled={offset + PAGE_SIZE >= total}
                onClick={() => setOffset(offset + PAGE_SIZE)}
              >
                Next page
              </Button>
            </Group>
          </Group>
        </>
      ) : null}
      <CreateUserModal opened={creating} onClose={close} />
    </Stack>
  );
}
