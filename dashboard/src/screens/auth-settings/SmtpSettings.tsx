// SMTP settings (the password is write-only: shown as set or not, an empty field keeps it) and
// a "send test email" that goes through the settings in force.
import {
  Button,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import { authSettingsApi, type SmtpConfig } from './auth-settings-api';
import { onSubmit } from '../../ui/on-submit';

const SOURCES = {
  api: 'these settings',
  environment: 'the SMTP_* environment variables',
  log: 'nothing: emails go to the server log',
};

function TestEmail() {
  const api = authSettingsApi(useApi());
  const [to, setTo] = useState('');
  const send = useMutation({ mutationFn: () => api.sendTestEmail(to) });
  const submit = onSubmit(() => send.mutate());
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit}>
      <Stack>
        <Title order={2} size="h3">
          Test email
        </Title>
        <TextInput
          label="Send a test email to"
          type="email"
          required
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={send.isPending}>
            Send test email
          </Button>
        </Group>
        <ActionResult error={send.error} success={send.data?.message} />
      </Stack>
    </Paper>
  );
}

export function SmtpSettings() {
  const api = authSettingsApi(useApi());
  const queries = useQueryClient();
  const smtp = useQuery({ queryKey: ['smtp'], queryFn: api.smtp });
  const [draft, setDraft] = useState<SmtpConfig | null>(null);
  const [password, setPassword] = useState('');
  useEffect(() => {
    if (smtp.data) setDraft(smtp.data);
  }, [smtp.data]);
  const save = useMutation({
    mutationFn: () => {
      const { enabled, host, port, secure, username, senderEmail, senderName } = draft!;
      return api.updateSmtp({
        enabled,
        port,
        secure,
        username,
        senderName,
        // Empty fields are left out: the server keeps what it has (they are required only when enabled).
        ...(host.trim() ? { host: host.trim() } : {}),
        ...(senderEmail.trim() ? { senderEmail: senderEmail.trim() } : {}),
        ...(password ? { password } : {}),
      });
    },
    onSuccess: (saved) => {
      setPassword('');
      queries.setQueryData(['smtp'], saved);
    },
  });
  if (smtp.isPending) return <Loading what="SMTP settings" />;
  if (smtp.isError) return <ErrorState error={smtp.error} what="SMTP settings" />;
  if (!draft) return null;

  const set = <K extends keyof SmtpConfig>(key: K, value: SmtpConfig[K]) => setDraft({ ...draft, [key]: value });
  const submit = onSubmit(() => save.mutate());

  return (
    <Stack>
      <Paper withBorder p="md" component="form" onSubmit={submit}>
        <Stack>
          <Text size="sm">Emails are sent now through {SOURCES[smtp.data.source]}.</Text>
          <Switch
            label="Use these SMTP settings"
            description="On: they win over the environment"
            checked={draft.enabled}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Host" value={draft.host} onChange={(e) => set('host', e.currentTarget.value)} />
            <NumberInput
              label="Port"
              min={1}
              max={65535}
              value={draft.port}
              onChange={(v) => set('port', typeof v === 'number' ? v : Number(v) || 587)}
            />
            <TextInput
              label="Username"
              value={draft.username}
              onChange={(e) => set('username', e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              description={smtp.data.hasPassword ? 'Set (never shown); leave empty to keep it' : 'Not set'}
              autoComplete="off"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <TextInput
              label="Sender email"
              type="email"
              value={draft.senderEmail}
              onChange={(e) => set('senderEmail', e.currentTarget.value)}
            />
            <TextInput
              label="Sender name"
              value={draft.senderName}
              onChange={(e) => set('senderName', e.currentTarget.value)}
            />
          </SimpleGrid>
          <Switch
            label="TLS from the start (port 465)"
            checked={draft.secure}
            onChange={(e) => set('secure', e.currentTarget.checked)}
          />
          <ActionResult error={save.error} success={save.isSuccess ? 'SMTP settings saved.' : null} />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save SMTP settings
            </Button>
          </Group>
        </Stack>
      </Paper>
      <TestEmail />
    </Stack>
  );
}
