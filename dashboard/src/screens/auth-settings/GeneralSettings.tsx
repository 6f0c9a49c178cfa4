// Sign-up switch, email verification, password policy, and how verification and reset emails
// work (a code to type, or a link to click).
import { Button, Checkbox, Group, NumberInput, Paper, Radio, Stack, Switch } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import type { AuthConfig } from './auth-settings-api';
import { useAuthConfig } from './use-auth-config';
import { onSubmit } from '../../ui/on-submit';

const RULES = [
  ['requireNumber', 'Require a number'],
  ['requireLowercase', 'Require a lowercase letter'],
  ['requireUppercase', 'Require an uppercase letter'],
  ['requireSpecialChar', 'Require a special character'],
] as const;

const FIELDS = [
  'disableSignup',
  'requireEmailVerification',
  'verifyEmailMethod',
  'resetPasswordMethod',
  'passwordMinLength',
  ...RULES.map(([key]) => key),
] as const;

function MethodChoice(props: { label: string; value: 'code' | 'link'; onChange: (v: 'code' | 'link') => void }) {
  return (
    <Radio.Group label={props.label} value={props.value} onChange={(v) => props.onChange(v as 'code' | 'link')}>
      <Group mt="xs">
        <Radio value="code" label="A 6-digit code" />
        <Radio value="link" label="A link" />
      </Group>
    </Radio.Group>
  );
}

export function GeneralSettings() {
  const { config, save } = useAuthConfig();
  const [draft, setDraft] = useState<AuthConfig | null>(null);
  useEffect(() => {
    if (config.data) setDraft(config.data);
  }, [config.data]);
  if (config.isPending) return <Loading what="auth settings" />;
  if (config.isError) return <ErrorState error={config.error} what="auth settings" />;
  if (!draft) return null;

  const set = <K extends keyof AuthConfig>(key: K, value: AuthConfig[K]) => setDraft({ ...draft, [key]: value });
  const submit = onSubmit(() => {
    // Only the fields this form owns (the allowlist has its own tab; ids and times are not settings).
    save.mutate(Object.fromEntries(FIELDS.map((f) => [f, draft[f]])) as Partial<AuthConfig>);
  });

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit}>
      <Stack>
        <Switch
          label="Allow sign-up"
          description="Off: only the admin can create users"
          checked={!draft.disableSignup}
          onChange={(e) => set('disableSignup', !e.currentTarget.checked)}
        />
        <Switch
          label="Require email verification"
          checked={draft.requireEmailVerification}
          onChange={(e) => set('requireEmailVerification', e.currentTarget.checked)}
        />
        <MethodChoice
          label="Verification emails send"
          value={draft.verifyEmailMethod}
          onChange={(v) => set('verifyEmailMethod', v)}
        />
        <MethodChoice
          label="Password reset emails send"
          value={draft.resetPasswordMethod}
          onChange={(v) => set('resetPasswordMethod', v)}
        />
        <NumberInput
          label="Minimum password length"
          min={4}
          max={128}
          value={draft.passwordMinLength}
          onChange={(v) => set('passwordMinLength', typeof v === 'number' ? v : Number(v) || 4)}
        />
        {RULES.map(([key, label]) => (
          <Checkbox key={key} label={label} checked={draft[key]} onChange={(e) => set(key, e.currentTarget.checked)} />
        ))}
        <ActionResult error={save.error} success={save.isSuccess ? 'Auth settings saved.' : null} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
