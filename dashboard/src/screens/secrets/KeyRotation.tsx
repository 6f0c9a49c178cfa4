// Rotating the API key and the anon key: the old key keeps working for the grace period; the new
// key is shown once, with a copy button, and never again.
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

function RotateKey({ which }: { which: RotatableKey }) {
  const api = secretsApi(useApi());
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
            message={`A new ${label} is issued now. The current one stops working in ${hours} hours; every client using it must switch before then.`}
            confirmLabel={`Rotate ${label}`}
            onConfirm={async () => setRotation(await api.rotate(which, hours))}
          />
        </Group>
        {rotation ? <NewKey label={label} rotation={rotation} /> : null}
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
      </SimpleGrid>
    </Stack>
  );
}
