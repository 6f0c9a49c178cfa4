// The signed-in frame: header (theme toggle, sign out), navigation to the screens that exist,
// and the current screen from the registry (shell/screens.tsx), each loaded on demand.
import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type MouseEvent, Suspense } from 'react';
import type { ProjectAdmin } from '../api/client';
import { hrefOf, navigate, usePath } from './route';
import { screenFor, screens } from './screens';
import { Loading } from './states';

function Screen({ path }: { path: string }) {
  const found = screenFor(path);
  if (!found) return <Text>No screen at {hrefOf(path)}.</Text>;
  return found.screen.render(found.rest);
}

function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const next = scheme === 'dark' ? 'light' : 'dark';
  return (
    <ActionIcon variant="default" size="lg" aria-label={`Switch to ${next} theme`} onClick={() => setColorScheme(next)}>
      <span aria-hidden="true">{scheme === 'dark' ? '☀' : '☾'}</span>
    </ActionIcon>
  );
}

export function Shell({ admin, onSignOut }: { admin: ProjectAdmin; onSignOut: () => void }) {
  const path = usePath();
  const [opened, { toggle, close }] = useDisclosure();
  const go = (to: string) => (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    close();
    navigate(to);
  };
  const active = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`));

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              Plinth
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="sm">
              {admin.username}
            </Text>
            <ThemeToggle />
            <Button variant="default" onClick={onSignOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        {screens.map((s) => (
          <NavLink
            key={s.path}
            component="a"
            href={hrefOf(s.path)}
            label={s.label}
            variant="filled"
            active={active(s.path)}
            aria-current={active(s.path) ? 'page' : undefined}
            onClick={go(s.path)}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<Loading what="screen" />}>
          <Screen path={path} />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
