// SAML single sign-on providers: what to give the identity provider (Plinth's SP metadata and ACS
// URLs), the registered providers with their domains, and a form to add one from a metadata URL
// or pasted XML, edit its domains and attribute mapping, or remove it. "Test sign-in" takes this
// browser through the provider and back to the outcome (SsoTestResult), signing nobody in.
import { Button, Code, Group, Modal, Paper, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiClient } from '../../api/client';
import { useApi } from '../../api/context';
import { jsonBody } from '../../api/json-body';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { onSubmit } from '../../ui/on-submit';
import { SsoTestResult } from './SsoTestResult';

interface SsoProvider {
  id: string;
  name: string | null;
  saml: { entityId: string; metadataUrl: string | null; attributeMapping: { keys: Record<string, unknown> } };
  domains: { domain: string }[];
}

const ssoApi = (api: ApiClient) => ({
  list: () => api.json<{ data: SsoProvider[] }>('/api/auth/sso/providers'),
  create: (body: Record<string, unknown>) => api.json('/api/auth/sso/providers', jsonBody('POST', body)),
  update: (id: string, body: Record<string, unknown>) =>
    api.json(`/api/auth/sso/providers/${id}`, jsonBody('PUT', body)),
  remove: (id: string) => api.json(`/api/auth/sso/providers/${id}`, jsonBody('DELETE')),
  startTest: (id: string) =>
    api.json<{ id: string; url: string }>(`/api/auth/sso/providers/${id}/test`, jsonBody('POST')),
});

const domainsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);

function SsoProviderForm({ existing, onClose }: { existing?: SsoProvider; onClose: () => void }) {
  const api = ssoApi(useApi());
  const queries = useQueryClient();
  const [name, setName] = useState(existing?.name ?? '');
  const [metadataUrl, setMetadataUrl] = useState(existing?.saml.metadataUrl ?? '');
  const [metadataXml, setMetadataXml] = useState('');
  const [domains, setDomains] = useState(existing?.domains.map((d) => d.domain).join(', ') ?? '');
  const [mapping, setMapping] = useState(JSON.stringify(existing?.saml.attributeMapping ?? undefined, null, 2) ?? '');
  const save = useMutation({
    mutationFn: async () => {
      const metadata = metadataXml.trim()
        ? { metadataXml }
        : metadataUrl.trim() && metadataUrl !== existing?.saml.metadataUrl
          ? { metadataUrl: metadataUrl.trim() }
          : {};
      const body = {
        ...(name.trim() ? { name: name.trim() } : {}),
        ...metadata,
        domains: domainsOf(domains),
        ...(mapping.trim() ? { attributeMapping: JSON.parse(mapping) } : {}),
      };
      return existing ? api.update(existing.id, body) : api.create(body);
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['sso'] });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={existing ? 'Edit SSO provider' : 'Add SSO provider'} size="lg">
      <Stack component="form" onSubmit={onSubmit(() => save.mutate())}>
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <TextInput
          label="Metadata URL"
          description="The identity provider's SAML metadata URL (fetched now; give it again to refresh certificates)"
          value={metadataUrl}
          onChange={(e) => setMetadataUrl(e.currentTarget.value)}
        />
        <Textarea
          label="Or metadata XML"
          autosize
          minRows={3}
          maxRows={10}
          value={metadataXml}
          onChange={(e) => setMetadataXml(e.currentTarget.value)}
        />
        <TextInput
          label="Email domains"
          description="Comma-separated; a domain belongs to one provider"
          value={domains}
          onChange={(e) => setDomains(e.currentTarget.value)}
        />
        <Textarea
          label="Attribute mapping (JSON)"
          description='e.g. {"keys": {"email": {"name": "mail"}, "name": {"names": ["displayName", "cn"]}}}'
          autosize
          minRows={2}
          value={mapping}
          onChange={(e) => setMapping(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
        </Group>
        <ActionResult error={save.error} />
      </Stack>
    </Modal>
  );
}

export function SsoProviders({ testId }: { testId?: string }) {
  const client = useApi();
  const api = ssoApi(client);
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['sso', 'providers'], queryFn: api.list });
  const [editing, setEditing] = useState<SsoProvider | 'new' | null>(null);
  // The browser goes to the identity provider and comes back to this screen with the outcome.
  const test = useMutation({
    mutationFn: api.startTest,
    onSuccess: ({ url }) => window.location.assign(url),
  });
  const origin = window.location.origin;
  return (
    <Stack>
      {testId ? <SsoTestResult testId={testId} /> : null}
      <ActionResult error={test.error} />
      <Paper withBorder p="md">
        <Stack gap="xs">
          <Text size="sm">Give the identity provider Plinth's service-provider details:</Text>
          <Text size="sm">
            Metadata and entity id: <Code>{`${origin}/api/auth/sso/saml/metadata`}</Code>
          </Text>
          <Text size="sm">
            ACS (HTTP-POST): <Code>{`${origin}/api/auth/sso/saml/acs`}</Code>
          </Text>
        </Stack>
      </Paper>
      <Group justify="space-between">
        <Title order={2} size="h3">
          SAML identity providers
        </Title>
        <Button onClick={() => setEditing('new')}>Add SSO provider</Button>
      </Group>
      {list.isPending ? <Loading what="SSO providers" /> : null}
      {list.isError ? <ErrorState error={list.error} what="SSO providers" /> : null}
      {list.data && list.data.data.length === 0 ? (
        <EmptyState title="No SSO provider">
          Register a SAML identity provider and the email domains it serves.
        </EmptyState>
      ) : null}
      {list.data?.data.length ? (
        <Table aria-label="SAML identity providers">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Provider</Table.Th>
              <Table.Th>Domains</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.data.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td>
                  <Text size="sm">{p.name ?? p.saml.entityId}</Text>
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    {p.saml.entityId}
                  </Text>
                </Table.Td>
                <Table.Td>{p.domains.map((d) => d.domain).join(', ') || '—'}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Button
                      size="xs"
                      variant="default"
                      aria-label={`Edit ${p.name ?? p.saml.entityId}`}
                      onClick={() => setEditing(p)}
                    >
                      Edit
                    </Button>
                    <Button
                      size="xs"
                      variant="default"
                      aria-label={`Test sign-in through ${p.name ?? p.saml.entityId}`}
                      loading={test.isPending && test.variables === p.id}
                      onClick={() => test.mutate(p.id)}
                    >
                      Test sign-in
                    </Button>
                    <ConfirmButton
                      size="xs"
                      label="Remove"
                      ariaLabel={`Remove ${p.name ?? p.saml.entityId}`}
                      title="Remove this SSO provider?"
                      message="Its users stay, but can no longer sign in through this identity provider."
                      confirmLabel="Remove provider"
                      onConfirm={() => api.remove(p.id).then(() => queries.invalidateQueries({ queryKey: ['sso'] }))}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {editing ? (
        <SsoProviderForm existing={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />
      ) : null}
    </Stack>
  );
}
