// The signed-in frame: header (the command palette, theme toggle, sign out), navigation to the screens that
// exist (with icons; narrowed to the icons on wide screens at the admin's choice, kept in this
// browser), and the current screen from the registry (shell/screens.tsx), each loaded on demand.
import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  Text,
  Title,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure, useLocalStorage } from '@mantine/hooks';
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand, IconSearch } from '@tabler/icons-react';
import { type MouseEvent, Suspense } from 'react';
import type { ProjectAdmin } from '../api/client';
import { CommandPalette } from './CommandPalette';
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
  const [palette, paletteControls] = useDisclosure();
  const [narrow, setNarrow] = useLocalStorage({ key: 'plinth:narrow-navigation', defaultValue: false });
  const go = (to: string) => (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    close();
    navigate(to);
  };
  const active = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`));

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: narrow ? 64 : 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <ActionIcon
              variant="subtle"
              size="lg"
              visibleFrom="sm"
              aria-label={narrow ? 'Show navigation labels' : 'Show navigation icons only'}
              onClick={() => setNarrow(!narrow)}
            >
              {narrow ? <IconLayoutSidebarLeftExpand aria-hidden /> : <IconLayoutSidebarLeftCollapse aria-hidden />}
            </ActionIcon>
            <Title order={2} size="h4">
              Plinth
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Button
              variant="default"
              leftSection={<IconSearch size={16} aria-hidden />}
              onClick={paletteControls.open}
              aria-label="Go to (Ctrl+K)"
            >
              <Text size="sm" visibleFrom="sm" span>
                Go to
              </Text>
            </Button>
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
        {screens.map((s) => {
          // Narrowed (wide screens only): the icon with the label as its name and tooltip.
          const iconOnly = narrow && !opened;
          const link = (
            <NavLink
              key={s.path}
              component="a"
              href={hrefOf(s.path)}
              label={iconOnly ? undefined : s.label}
              aria-label={iconOnly ? s.label : undefined}
              leftSection={<s.icon size={18} stroke={1.6} aria-hidden />}
              variant="filled"
              active={active(s.path)}
              aria-current={active(s.path) ? 'page' : undefined}
              onClick={go(s.path)}
            />
          );
          return iconOnly ? (
            <Tooltip key={s.path} label={s.label} position="right">
              {link}
            </Tooltip>
          ) : (
            link
          );
        })}
      </AppShell.Navbar>
      <CommandPalette opened={palette} onOpen={paletteControls.open} onClose={paletteControls.close} />
      <AppShell.Main>
        <Suspense fallback={<Loading what="screen" />}>
          <Screen path={path} />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
