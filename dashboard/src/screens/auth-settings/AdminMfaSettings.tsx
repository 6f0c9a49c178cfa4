// The project admin's second factor: enroll a TOTP authenticator (QR code and secret shown once,
// confirmed with a first code), list and remove the admin's factors, and the switch that makes
// the admin sign-in ask for a code (the API refuses it until a verified factor exists).
import {
  Button,
  Code,
  Group,
  Image,
  Paper,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { ActionResult } from '../../ui/ActionResult';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { Time } from '../../ui/Time';
import { onSubmit } from '../../ui/on-submit';
import { StatusBadge } from '../../ui/StatusBadge';
import { adminMfaApi, type EnrolledFactor } from './admin-mfa-api';

const SETTINGS = ['admin-mfa', 'settings'];
const FACTORS = ['admin-mfa', 'factors'];

function useAdminMfa() {
  return adminMfaApi(useApi());
}

function RequireAdminMfa() {
  const api = useAdminMfa();
  const queries = useQueryClient();
  const settings = useQuery({ queryKey: SETTINGS, queryFn: api.settings });
  const save = useMutation({
    mutationFn: api.updateSettings,
    onSuccess: (saved) => queries.setQueryData(SETTINGS, saved),
  });
  // A refusal ("no verified factor") is stale once the admin's verified factors change.
  const verified = useQuery({ queryKey: FACTORS, queryFn: api.factors }).data?.data.filter(
    (f) => f.status === 'verified',
  ).length;
  const { reset } = save;
  useEffect(() => {
    if (verified !== undefined) reset();
  }, [verified, reset]);
  if (settings.isPending) return <Loading what="admin MFA setting" />;
  if (settings.isError) return <ErrorState error={settings.error} what="admin MFA setting" />;
  const on = settings.data.requireAdminMfa;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Switch
          label="Require MFA for the project admin"
          description="The dashboard sign-in then asks for a code of a verified authenticator below. The API key can still turn this off if the phone is lost."
          checked={on}
          disabled={save.isPending}
          onChange={(e) => save.mutate(e.currentTarget.checked)}
        />
        {save.error ? (
          <ActionError title="The setting was not changed" error={save.error}>
            {on ? null : (
              <Text size="sm">Add an authenticator below and verify its first code, then turn this on.</Text>
            )}
          </ActionError>
        ) : (
          <ActionResult
            success={
              save.isSuccess ? `MFA is ${on ? 'now required' : 'no longer required'} for the admin sign-in.` : null
            }
          />
        )}
      </Stack>
    </Paper>
  );
}

/** The factor just enrolled: its QR code and secret (shown this once) and the first code. */
function ConfirmFactor({ factor, onDone }: { factor: EnrolledFactor; onDone: (verified: boolean) => void }) {
  const api = useAdminMfa();
  const [code, setCode] = useState('');
  const verify = useMutation({ mutationFn: () => api.verify(factor.id, code), onSuccess: () => onDone(true) });
  const cancel = useMutation({ mutationFn: () => api.remove(factor.id), onSuccess: () => onDone(false) });
  const qrIsImage = factor.totp.qrCode.startsWith('data:image/svg+xml');
  return (
    <Paper withBorder p="md" component="form" onSubmit={onSubmit(() => verify.mutate())}>
      <Stack>
        <Title order={3} size="h4">
          Scan “{factor.friendlyName}” with your authenticator app
        </Title>
        {qrIsImage ? (
          <Image src={factor.totp.qrCode} alt={`QR code of ${factor.friendlyName}`} w={200} h={200} bg="white" />
        ) : null}
        <Text size="sm">
          Or type this secret: <Code data-testid="totp-secret">{factor.totp.secret}</Code>
        </Text>
        <Text size="sm" c="dimmed">
          The secret is shown only now; the server keeps it sealed and never shows it again.
        </Text>
        <TextInput
          label="First code from the app"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, '').slice(0, 6))}
        />
        <Group>
          <Button type="submit" loading={verify.isPending}>
            Verify code
          </Button>
          <Button variant="default" loading={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel
          </Button>
        </Group>
        <ActionResult error={verify.error ?? cancel.error} />
      </Stack>
    </Paper>
  );
}

function EnrollFactor() {
  const api = useAdminMfa();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [enrolled, setEnrolled] = useState<EnrolledFactor | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const enroll = useMutation({
    mutationFn: () => api.enroll(name.trim()),
    onSuccess: (factor) => {
      setEnrolled(factor);
      setDone(null);
      setName('');
      void queries.invalidateQueries({ queryKey: FACTORS });
    },
  });
  const finish = (verified: boolean) => {
    if (verified && enrolled) setDone(`Authenticator “${enrolled.friendlyName}” verified.`);
    setEnrolled(null);
    void queries.invalidateQueries({ queryKey: FACTORS });
  };
  if (enrolled) return <ConfirmFactor factor={enrolled} onDone={finish} />;
  return (
    <Paper withBorder p="md" component="form" onSubmit={onSubmit(() => enroll.mutate())}>
      <Stack>
        <TextInput
          label="Authenticator name"
          description="Optional, e.g. “Admin phone”"
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={enroll.isPending}>
            Add authenticator
          </Button>
        </Group>
        <ActionResult error={enroll.error} success={done} />
      </Stack>
    </Paper>
  );
}

function FactorList() {
  const api = useAdminMfa();
  const queries = useQueryClient();
  const factors = useQuery({ queryKey: FACTORS, queryFn: api.factors });
  if (factors.isPending) return <Loading what="admin authenticators" />;
  if (factors.isError) return <ErrorState error={factors.error} what="admin authenticators" />;
  if (factors.data.data.length === 0) {
    return <EmptyState title="No authenticator">The project admin has no TOTP factor yet.</EmptyState>;
  }
  return (
    <Table aria-label="Admin authenticators">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Added</Table.Th>
          <Table.Th>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {factors.data.data.map((factor) => (
          <Table.Tr key={factor.id}>
            <Table.Td>{factor.friendlyName}</Table.Td>
            <Table.Td>
              <StatusBadge tone={factor.status === 'verified' ? 'good' : 'neutral'}>{factor.status}</StatusBadge>
            </Table.Td>
            <Table.Td>
              <Time iso={factor.createdAt} />
            </Table.Td>
            <Table.Td ta="right">
              <ConfirmButton
                size="xs"
                label="Remove"
                ariaLabel={`Remove ${factor.friendlyName}`}
                title="Remove this authenticator?"
                message={`Its codes will no longer sign the admin in (${factor.friendlyName}).`}
                confirmLabel="Remove"
                onConfirm={async () => {
                  await api.remove(factor.id);
                  await queries.invalidateQueries({ queryKey: FACTORS });
                }}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function AdminMfaSettings() {
  return (
    <Stack>
      <RequireAdminMfa />
      <Title order={2} size="h3">
        Admin authenticators
      </Title>
      <EnrollFactor />
      <FactorList />
    </Stack>
  );
}
