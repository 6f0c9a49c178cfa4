// Rotating the API key, the anon key and the access-token signing key: the old key keeps working
// for the grace period; a new API/anon key is shown once, with a copy button, and never again; a
// new signing key is never shown (only its key id, as the JWKS publishes it).
import {
  Alert,
  Button,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ROTATIONS, type RotatableKey, type Rotation, secretsApi } from './secrets-api';

function NewKey({ label, rotation }: { label: string; rotation: Rotation }) {
  return (
    <Alert
      color="yellow"
      title={`New ${label} — copy it now, it is not shown again`}
      role="status"
      styles={{ title: { color: 'var(--mantine-color-text)' } }}
    >
      <Stack gap="xs">
        <TextInput label={`New ${label}`} readOnly value={rotation.key} />
        <Group>
          <CopyButton value={rotation.key}>
            {({ copied, copy }) => (
              <Button size="xs" variant="default" onClick={copy}>
                {copied ? 'Copied' : `Copy ${label}`}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Text size="sm">The old key keeps working until {new Date(rotation.oldKeyExpiresAt).toLocaleString()}.</Text>
      </Stack>
    </Alert>
  );
}

function NewSigningKey({ rotation }: { rotation: Rotation }) {
  return (
    <Alert
      color="yellow"
      title="New signing key in use"
      role="status"
      styles={{ title: { color: 'var(--mantine-color-text)' } }}
    >
      <Stack gap="xs">
        <Text size="sm">Key id: {rotation.key}</Text>
        <Text size="sm">
          {`Access tokens signed by the old key are accepted until ${new Date(rotation.oldKeyExpiresAt).toLocaleString()}; clients then refresh their session.`}
        </Text>
      </Stack>
    </Alert>
  );
}

const CONSEQUENCES: Record<RotatableKey, (label: string, hours: number) => string> = {
  api: (label, hours) =>
    `A new ${label} is issued now. The current one stops working in ${hours} hours; every client using it must switch before then.`,
  anon: (label, hours) =>
    `A new ${label} is issued now. The current one stops working in ${hours} hours; every client using it must switch before then.`,
  signing: (_label, hours) =>
    `Access tokens are signed with a new key from now on. Tokens signed by the current key stop working in ${hours} hours (0: at once — every signed-in user and admin refreshes their session).`,
};

function RotateKey({ which }: { which: RotatableKey }) {
  const client = useApi();
  const api = secretsApi(client);
  const { label, defaultHours, maxHours } = ROTATIONS[which];
  const [hours, setHours] = useState<number>(defaultHours);
  const [rotation, setRotation] = useState<Rotation | null>(null);
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={3} size="h4">
          {label}
        </Title>
        <NumberInput
          label={`Grace period for the old ${label} (hours)`}
          min={0}
          max={maxHours}
          value={hours}
          onChange={(v) => setHours(typeof v === 'number' ? v : Number(v) || 0)}
        />
        <Group>
          <ConfirmButton
            label={`Rotate ${label}`}
            title={`Rotate the ${label}?`}
            message={CONSEQUENCES[which](label, hours)}
            confirmLabel={`Rotate ${label}`}
            onConfirm={async () => {
              setRotation(await api.rotate(which, hours));
              // The dashboard's own token was signed by the old key: take a new one before it is refused.
              if (which === 'signing' && hours === 0) await client.resume();
            }}
          />
        </Group>
        {rotation && which === 'signing' ? <NewSigningKey rotation={rotation} /> : null}
        {rotation && which !== 'signing' ? <NewKey label={label} rotation={rotation} /> : null}
      </Stack>
    </Paper>
  );
}

export function KeyRotation() {
  return (
    <Stack component="section" aria-labelledby="rotation-heading">
      <Title order={2} size="h3" id="rotation-heading">
        Access keys
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <RotateKey which="api" />
        <RotateKey which="anon" />
        <RotateKey which="signing" />
      </SimpleGrid>
    </Stack>
  );
}
