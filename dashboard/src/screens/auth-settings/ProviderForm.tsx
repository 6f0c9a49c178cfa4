// Adds or edits an OAuth provider, built-in or custom OpenID Connect. The client secret is
// write-only: the form says whether one is set, and an empty field keeps it.
import { Button, Group, Modal, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionResult } from '../../ui/ActionResult';
import {
  authSettingsApi,
  BUILT_IN_PROVIDERS,
  type BuiltInProviderConfig,
  type CustomProviderConfig,
} from './auth-settings-api';
import { onSubmit } from '../../ui/on-submit';

export type ProviderTarget =
  | { kind: 'builtin'; existing?: BuiltInProviderConfig; taken: string[] }
  | { kind: 'custom'; existing?: CustomProviderConfig };

const scopesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function ProviderForm({ target, onClose }: { target: ProviderTarget; onClose: () => void }) {
  const api = authSettingsApi(useApi());
  const queries = useQueryClient();
  const existing = target.existing;
  const [name, setName] = useState(
    target.kind === 'builtin' ? (target.existing?.provider ?? null) : (target.existing?.key ?? ''),
  );
  const [label, setLabel] = useState(target.kind === 'custom' ? (target.existing?.name ?? '') : '');
  const [discovery, setDiscovery] = useState(
    target.kind === 'custom' ? (target.existing?.discoveryEndpoint ?? '') : '',
  );
  const [clientId, setClientId] = useState(existing?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [scopes, setScopes] = useState(existing?.scopes?.join(' ') ?? '');

  const save = useMutation({
    mutationFn: async () => {
      const common = {
        clientId,
        ...(clientSecret ? { clientSecret } : {}),
        ...(scopes.trim() ? { scopes: scopesOf(scopes) } : {}),
      };
      if (target.kind === 'builtin') {
        return existing ? api.updateProvider(name!, common) : api.createProvider({ provider: name, ...common });
      }
      const custom = { ...common, name: label, discoveryEndpoint: discovery };
      return existing ? api.updateCustom(name!, custom) : api.createCustom({ key: name, ...custom });
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['oauth'] });
      onClose();
    },
  });
  const submit = onSubmit(() => save.mutate());
  const title = `${existing ? 'Edit' : 'Add'} ${target.kind === 'builtin' ? 'provider' : 'custom OIDC provider'}`;
  const secretState = existing?.hasClientSecret ? 'A secret is set (never shown); leave empty to keep it.' : 'Not set.';

  return (
    <Modal opened onClose={onClose} title={title} centered>
      <form onSubmit={submit}>
        <Stack>
          {target.kind === 'builtin' ? (
            <Select
              label="Provider"
              required
              disabled={!!existing}
              data={BUILT_IN_PROVIDERS.filter((p) => p === name || !target.taken.includes(p))}
              value={name}
              onChange={setName}
            />
          ) : (
            <>
              <TextInput
                label="Key"
                description="Lowercase letters, digits, _ or -; used in /api/auth/oauth/custom/{key}"
                required
                disabled={!!existing}
                value={name ?? ''}
                onChange={(e) => setName(e.currentTarget.value)}
              />
              <TextInput
                label="Display name"
                required
                value={label}
                onChange={(e) => setLabel(e.currentTarget.value)}
              />
              <TextInput
                label="Discovery URL"
                description="The issuer's /.well-known/openid-configuration"
                required
                value={discovery}
                onChange={(e) => setDiscovery(e.currentTarget.value)}
              />
            </>
          )}
          <TextInput label="Client ID" required value={clientId} onChange={(e) => setClientId(e.currentTarget.value)} />
          <PasswordInput
            label="Client secret"
            description={secretState}
            required={target.kind === 'custom' && !existing}
            autoComplete="off"
            value={clientSecret}
            onChange={(e) => setClientSecret(e.currentTarget.value)}
          />
          <TextInput
            label="Scopes (optional)"
            description="Separated by spaces or commas; empty keeps the provider's defaults"
            value={scopes}
            onChange={(e) => setScopes(e.currentTarget.value)}
          />
          <ActionResult error={save.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save provider
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
