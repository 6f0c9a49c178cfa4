// Who is at the keyboard: resumes the admin session from its cookie, else shows sign-in; then the shell.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ProjectAdmin } from './api/client';
import { useApi } from './api/context';
import { Shell } from './shell/Shell';
import { SignIn } from './shell/SignIn';
import { Loading } from './shell/states';

type Session = { state: 'checking' } | { state: 'signedOut' } | { state: 'signedIn'; admin: ProjectAdmin };

export function App() {
  const api = useApi();
  const queries = useQueryClient();
  const [session, setSession] = useState<Session>({ state: 'checking' });

  useEffect(() => {
    let current = true;
    api
      .resume()
      .catch(() => null)
      .then((admin) => {
        if (current) setSession(admin ? { state: 'signedIn', admin } : { state: 'signedOut' });
      });
    return () => {
      current = false;
    };
  }, [api]);

  if (session.state === 'checking') {
    return (
      <main>
        <Loading what="session" />
      </main>
    );
  }
  if (session.state === 'signedOut') return <SignIn onSignedIn={(admin) => setSession({ state: 'signedIn', admin })} />;
  const signOut = async () => {
    await api.signOut();
    queries.clear();
    setSession({ state: 'signedOut' });
  };
  return <Shell admin={session.admin} onSignOut={signOut} />;
}
