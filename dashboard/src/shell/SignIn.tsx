// The admin sign-in form (ADMIN_EMAIL / ADMIN_PASSWORD): a web-client session with the refresh
// token in an httpOnly cookie.
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import type { ProjectAdmin } from '../api/client';
import { useApi } from '../api/context';

export function SignIn({ onSignedIn }: { onSignedIn: (admin: ProjectAdmin) => void }) {
  const api = useApi();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(email, password));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
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
            <Button type="submit" loading={pending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
