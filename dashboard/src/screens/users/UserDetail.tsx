// One user: identity, verified state and linked providers, live sessions (revocable), a password
// reset email, and deleting the account.
import { Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { navigate } from '../../shell/route';
import { ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ResetEmailForm } from './ResetEmailForm';
import { UserFactors } from './UserFactors';
import { UserIdentities } from './UserIdentities';
import { UserSessions } from './UserSessions';
import { UserPasskeys } from './UserPasskeys';
import { Time } from '../../ui/Time';
import { type User, usersApi } from './users-api';

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" fw={700}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

function UserFacts({ user }: { user: User }) {
  return (
    <Paper withBorder p="md">
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Fact label="User id">{user.id}</Fact>
        <Fact label="Email verified">
          <Badge color={user.emailVerified ? 'teal.9' : 'gray.8'}>
            {user.emailVerified ? 'Verified' : 'Unverified'}
          </Badge>
        </Fact>
        <Fact label="Linked providers">{user.providers.join(', ') || 'none'}</Fact>
        <Fact label="Anonymous">{user.isAnonymous ? <Badge color="grape.9">Anonymous</Badge> : 'No'}</Fact>
        <Fact label="Name">{typeof user.profile.name === 'string' ? user.profile.name : '—'}</Fact>
        <Fact label="Created">
          <Time iso={user.createdAt} />
        </Fact>
        <Fact label="Updated">
          <Time iso={user.updatedAt} />
        </Fact>
      </SimpleGrid>
    </Paper>
  );
}

export default function UserDetail({ userId }: { userId: string }) {
  const api = usersApi(useApi());
  const queries = useQueryClient();
  const user = useQuery({ queryKey: ['users', 'one', userId], queryFn: () => api.get(userId) });

  const remove = async () => {
    await api.remove(userId);
    // Leave first: refetching the deleted user's page would only answer 404.
    navigate('/users');
    // Every per-user query (['users', <part>, userId]: one, sessions, factors, passkeys, identities).
    queries.removeQueries({ predicate: (q) => q.queryKey[0] === 'users' && q.queryKey[2] === userId });
    await queries.invalidateQueries({ queryKey: ['users'] });
  };

  return (
    <Stack>
      <Link to="/users">← All users</Link>
      {user.isPending ? <Loading what="user" /> : null}
      {user.isError ? <ErrorState error={user.error} what="this user" /> : null}
      {user.data ? (
        <>
          <Group justify="space-between">
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              {user.data.email ?? 'Anonymous user'}
            </Title>
            <ConfirmButton
              label="Delete user"
              title="Delete this user?"
              message={`${user.data.email ?? 'This anonymous user'} and every session of theirs will be deleted. This cannot be undone.`}
              confirmLabel="Delete user"
              onConfirm={remove}
            />
          </Group>
          <UserFacts user={user.data} />
          <UserSessions userId={userId} />
          <UserPasskeys userId={userId} />
          <UserFactors userId={userId} />
          <UserIdentities userId={userId} />
          {user.data.email ? <ResetEmailForm email={user.data.email} /> : null}
        </>
      ) : null}
    </Stack>
  );
}
