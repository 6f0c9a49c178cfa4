// OAuth providers: the configured built-in ones and the custom OpenID Connect ones, each with its
// client id and whether a secret is set (secrets are never read back); add, edit, remove.
import { Badge, Button, Group, Stack, Table, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { authSettingsApi } from './auth-settings-api';
import { ProviderForm, type ProviderTarget } from './ProviderForm';

interface Row {
  id: string;
  label: string;
  clientId: string;
  hasClientSecret: boolean;
  edit: ProviderTarget;
  remove: () => Promise<unknown>;
}

function ProviderTable({
  caption,
  rows,
  onEdit,
}: {
  caption: string;
  rows: Row[];
  onEdit: (t: ProviderTarget) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-label={caption}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Provider</Table.Th>
            <Table.Th>Client ID</Table.Th>
            <Table.Th>Client secret</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id}>
              <Table.Td>{row.label}</Table.Td>
              <Table.Td>{row.clientId}</Table.Td>
              <Table.Td>
                <Badge color={row.hasClientSecret ? 'teal.9' : 'gray.8'}>
                  {row.hasClientSecret ? 'Set' : 'Not set'}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button size="xs" variant="default" aria-label={`Edit ${row.label}`} onClick={() => onEdit(row.edit)}>
                    Edit
                  </Button>
                  <ConfirmButton
                    size="xs"
                    label="Remove"
                    ariaLabel={`Remove ${row.label}`}
                    title={`Remove ${row.label}?`}
                    message="Users can no longer sign in with this provider until it is configured again."
                    confirmLabel="Remove provider"
                    onConfirm={row.remove}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function OAuthProviders() {
  const api = authSettingsApi(useApi());
  const queries = useQueryClient();
  const builtIn = useQuery({ queryKey: ['oauth', 'builtin'], queryFn: api.providers });
  const custom = useQuery({ queryKey: ['oauth', 'custom'], queryFn: api.customProviders });
  const [editing, setEditing] = useState<ProviderTarget | null>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ['oauth'] });
  const taken = builtIn.data?.data.map((p) => p.provider) ?? [];

  const builtInRows: Row[] = (builtIn.data?.data ?? []).map((p) => ({
    id: p.provider,
    label: p.provider,
    clientId: p.clientId,
    hasClientSecret: p.hasClientSecret,
    edit: { kind: 'builtin', existing: p, taken },
    remove: () => api.removeProvider(p.provider).then(refresh),
  }));
  const customRows: Row[] = (custom.data?.data ?? []).map((p) => ({
    id: p.key,
    label: `${p.name} (${p.key})`,
    clientId: p.clientId,
    hasClientSecret: p.hasClientSecret,
    edit: { kind: 'custom', existing: p },
    remove: () => api.removeCustom(p.key).then(refresh),
  }));

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Built-in providers
        </Title>
        <Button onClick={() => setEditing({ kind: 'builtin', taken })}>Add provider</Button>
      </Group>
      {builtIn.isPending ? <Loading what="providers" /> : null}
      {builtIn.isError ? <ErrorState error={builtIn.error} what="providers" /> : null}
      {builtIn.data && builtInRows.length === 0 ? (
        <EmptyState title="No built-in provider configured">Add Google, GitHub, Apple and others.</EmptyState>
      ) : null}
      {builtInRows.length ? (
        <ProviderTable caption="Built-in providers" rows={builtInRows} onEdit={setEditing} />
      ) : null}

      <Group justify="space-between">
        <Title order={2} size="h3">
          Custom OpenID Connect providers
        </Title>
        <Button onClick={() => setEditing({ kind: 'custom' })}>Add custom provider</Button>
      </Group>
      {custom.isPending ? <Loading what="custom providers" /> : null}
      {custom.isError ? <ErrorState error={custom.error} what="custom providers" /> : null}
      {custom.data && customRows.length === 0 ? (
        <EmptyState title="No custom provider">Any OpenID Connect issuer with a discovery URL can be added.</EmptyState>
      ) : null}
      {customRows.length ? (
        <ProviderTable caption="Custom OpenID Connect providers" rows={customRows} onEdit={setEditing} />
      ) : null}
      {editing ? <ProviderForm target={editing} onClose={() => setEditing(null)} /> : null}
    </Stack>
  );
}
