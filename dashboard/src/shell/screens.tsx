// The registry of screens, in navigation order: each owns a path and everything under it, renders
// lazily (one chunk per screen) and gets the rest of the path (e.g. a table name) to render.
import {
  IconBolt,
  IconBroadcast,
  IconClockHour4,
  IconCreditCard,
  IconDatabaseExport,
  IconFolders,
  IconGitBranch,
  IconHome,
  IconKey,
  IconListDetails,
  IconShieldLock,
  IconSparkles,
  IconTable,
  IconTerminal2,
  IconUsers,
  IconWorldWww,
  type Icon,
} from '@tabler/icons-react';
import { lazy, type ReactNode } from 'react';

const Overview = lazy(() => import('../screens/Overview'));
const TablesList = lazy(() => import('../screens/tables/TablesList'));
const TableView = lazy(() => import('../screens/tables/TableView'));
const SqlScreen = lazy(() => import('../screens/sql/SqlScreen'));
const MigrationsScreen = lazy(() => import('../screens/migrations/MigrationsScreen'));
const UsersScreen = lazy(() => import('../screens/users/UsersScreen'));
const UserDetail = lazy(() => import('../screens/users/UserDetail'));
const AuthSettingsScreen = lazy(() => import('../screens/auth-settings/AuthSettingsScreen'));
const Storage = lazy(() => import('../screens/storage/StorageScreen'));
const Functions = lazy(() => import('../screens/functions/FunctionsScreen'));
const SecretsScreen = lazy(() => import('../screens/secrets/SecretsScreen'));
const RealtimeScreen = lazy(() => import('../screens/realtime/RealtimeScreen'));
const SchedulesScreen = lazy(() => import('../screens/schedules/SchedulesScreen'));
const BackupsScreen = lazy(() => import('../screens/backups/BackupsScreen'));
const LogsScreen = lazy(() => import('../screens/logs/LogsScreen'));
const PaymentsScreen = lazy(() => import('../screens/payments/PaymentsScreen'));
const AiScreen = lazy(() => import('../screens/ai/AiScreen'));
const SitesScreen = lazy(() => import('../screens/sites/SitesScreen'));

export interface ScreenEntry {
  path: string;
  label: string;
  icon: Icon;
  /** `rest` is the decoded path below the screen's own ("" on the screen itself). */
  render(rest: string): ReactNode;
}

export const screens: ScreenEntry[] = [
  { path: '/', label: 'Overview', icon: IconHome, render: () => <Overview /> },
  {
    path: '/tables',
    label: 'Tables',
    icon: IconTable,
    render: (rest) => (rest ? <TableView table={rest} /> : <TablesList />),
  },
  { path: '/sql', label: 'SQL editor', icon: IconTerminal2, render: () => <SqlScreen /> },
  { path: '/migrations', label: 'Migrations', icon: IconGitBranch, render: () => <MigrationsScreen /> },
  {
    path: '/users',
    label: 'Users',
    icon: IconUsers,
    render: (rest) => (rest ? <UserDetail userId={rest} /> : <UsersScreen />),
  },
  {
    path: '/auth-settings',
    label: 'Auth settings',
    icon: IconShieldLock,
    render: (rest) => <AuthSettingsScreen rest={rest} />,
  },
  { path: '/storage', label: 'Storage', icon: IconFolders, render: (rest) => <Storage rest={rest} /> },
  { path: '/functions', label: 'Functions', icon: IconBolt, render: (rest) => <Functions rest={rest} /> },
  { path: '/secrets', label: 'Secrets', icon: IconKey, render: () => <SecretsScreen /> },
  { path: '/realtime', label: 'Realtime', icon: IconBroadcast, render: () => <RealtimeScreen /> },
  { path: '/schedules', label: 'Schedules', icon: IconClockHour4, render: () => <SchedulesScreen /> },
  { path: '/backups', label: 'Backups', icon: IconDatabaseExport, render: () => <BackupsScreen /> },
  { path: '/logs', label: 'Logs', icon: IconListDetails, render: () => <LogsScreen /> },
  { path: '/payments', label: 'Payments', icon: IconCreditCard, render: () => <PaymentsScreen /> },
  { path: '/ai', label: 'AI', icon: IconSparkles, render: () => <AiScreen /> },
  { path: '/sites', label: 'Sites', icon: IconWorldWww, render: () => <SitesScreen /> },
];

/** The screen that owns a path and the rest of it below the screen's own, or null. */
export function screenFor(path: string): { screen: ScreenEntry; rest: string } | null {
  if (path === '/') return { screen: screens[0] as ScreenEntry, rest: '' };
  for (const screen of screens) {
    if (screen.path === '/') continue;
    if (path === screen.path) return { screen, rest: '' };
    if (path.startsWith(`${screen.path}/`))
      return { screen, rest: decodeURIComponent(path.slice(screen.path.length + 1)) };
  }
  return null;
}
