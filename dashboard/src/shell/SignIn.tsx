// The admin sign-in form (ADMIN_EMAIL / ADMIN_PASSWORD): a web-client session with the refresh
// token in an httpOnly cookie. When the project requires MFA for the admin, the server answers
// AUTH_MFA_REQUIRED and the form asks for the authenticator's 6-digit code too.
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, type ProjectAdmin } from '../api/client';
import { useApi } from '../api/context';

/** What the admin reads when a sign-in fails; the code field's own cases get plain words. */
function failureMessage(err: unknown): string {
  if (err instanceof ApiError && err.code === 'AUTH_MFA_VERIFICATION_FAILED') {
    return 'That code is not right, or it was already used. Wait for the next code in your authenticator app and try again.';
  }
  if (err instanceof ApiError && err.code === 'AUTH_MFA_FACTOR_LOCKED') {
    return 'Too many wrong codes: the authenticator is locked for up to five minutes. Try again later.';
  }
  return err instanceof Error ? err.message : String(err);
}

export function SignIn({ onSignedIn }: { onSignedIn: (admin: ProjectAdmin) => void }) {
  const api = useApi();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  /** null until the server asks for a code; then the code typed so far. */
  const [code, setCode] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const codeInput = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(email, password, code ?? undefined));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'AUTH_MFA_REQUIRED' && code === null) {
        setCode('');
      } else {
        setError(failureMessage(err));
        if (code !== null) setCode('');
      }
      // The field the admin types next: the code (it appears, or a wrong one was cleared).
      setTimeout(() => codeInput.current?.focus(), 0);
    } finally {
      setPending(false);
    }
  };

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} maw="100%">
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h3">
              Plinth dashboard
            </Title>
            {error ? (
              <Alert color="red" role="alert" title="Sign-in failed">
                {error}
              </Alert>
            ) : null}
            <TextInput
              label="Admin email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            {code === null ? null : (
              <TextInput
                ref={codeInput}
                label="Authentication code"
                description="This project requires a second factor: the 6-digit code your authenticator app shows now."
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]{6}"
                maxLength={6}
                required
                value={code}
                onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, '').slice(0, 6))}
              />
            )}
            <Button type="submit" loading={pending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
