// A user's passkeys (WebAuthn): name, when each was added and last used; the admin can remove one
// (the removal is audited, and that passkey can no longer sign in).
import { Stack, Table, Title, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { jsonBody } from '../../api/json-body';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { Time } from '../../ui/Time';

interface Passkey {
  id: string;
  name: string;
  deviceType: string;
  backedUp: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

export function UserPasskeys({ userId }: { userId: string }) {
  const api = useApi();
  const queries = useQueryClient();
  const key = ['users', 'passkeys', userId];
  const passkeys = useQuery({
    queryKey: key,
    queryFn: () => api.json<{ data: Passkey[] }>(`/api/auth/users/${userId}/passkeys`),
  });
  const list = passkeys.data?.data;

  return (
    <Stack component="section" aria-labelledby="passkeys-heading">
      <Title order={2} size="h3" id="passkeys-heading">
        Passkeys
      </Title>
      {passkeys.isPending ? <Loading what="passkeys" /> : null}
      {passkeys.isError ? <ErrorState error={passkeys.error} what="passkeys" /> : null}
      {list?.length === 0 ? <EmptyState title="No passkeys">This user has not registered a passkey.</EmptyState> : null}
      {list?.length ? (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Passkeys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Added</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Synced</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>{p.name}</Table.Td>
                  <Table.Td>
                    <Time iso={p.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <Time iso={p.lastUsedAt} />
                  </Table.Td>
                  <Table.Td>{p.backedUp ? 'Yes' : 'No'}</Table.Td>
                  <Table.Td>
                    <ConfirmButton
                      size="xs"
                      label="Remove"
                      ariaLabel={`Remove passkey ${p.name}`}
                      title="Remove this passkey?"
                      message="It can no longer sign in or serve as a second factor. The user can register it again."
                      confirmLabel="Remove passkey"
                      onConfirm={async () => {
                        await api.json(`/api/auth/users/${userId}/passkeys/${p.id}`, jsonBody('DELETE'));
                        await queries.invalidateQueries({ queryKey: key });
                      }}
                    />
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
