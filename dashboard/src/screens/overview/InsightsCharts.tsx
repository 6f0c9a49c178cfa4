// The overview's charts over the last hour, day or week (recharts: loaded with this component
// only). Each card shows one family from /api/insights and links to the logs behind it.
import { Paper, SimpleGrid, Stack, Text, Title, useComputedColorScheme } from '@mantine/core';
import { useReducedMotion } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { ErrorState, Loading } from '../../shell/states';
import { formatBytes } from '../../ui/format';
import {
  type AuthInsights,
  type FunctionsInsights,
  type InsightsRange,
  logsLink,
  type RealtimeInsights,
  type SizesInsights,
  tickOf,
  type Traffic,
} from './insights-types';

// Shade 8/9 of Mantine's palette: readable on both themes' backgrounds.
const COLOURS = {
  ok: '#2b8a3e',
  redirect: '#1864ab',
  client: '#e67700',
  server: '#c92a2a',
  a: '#364fc7',
  b: '#0ca678',
};

/** The requests chart's stacked series: one per status class. */
const STATUS_CLASSES = [
  { key: 's2xx', name: '2xx', colour: COLOURS.ok },
  { key: 's3xx', name: '3xx', colour: COLOURS.redirect },
  { key: 's4xx', name: '4xx', colour: COLOURS.client },
  { key: 's5xx', name: '5xx', colour: COLOURS.server },
];

function Card({
  title,
  summary,
  link,
  children,
}: {
  title: string;
  summary: string;
  link?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="md" role="figure" aria-label={title}>
      <Stack gap={4}>
        <Title order={3} size="h5">
          {title}
        </Title>
        <Text size="sm">{summary}</Text>
        <ResponsiveContainer width="100%" height={180}>
          {children as React.ReactElement}
        </ResponsiveContainer>
        {link}
      </Stack>
    </Paper>
  );
}

function useInsights<T>(family: string, range: InsightsRange) {
  const api = useApi();
  return useQuery({
    queryKey: ['insights', family, range],
    queryFn: () => api.json<T>(`/api/insights/${family}?range=${range}`),
    refetchInterval: 60_000,
  });
}

const total = <T,>(points: T[], pick: (p: T) => number) => points.reduce((n, p) => n + pick(p), 0);
const RATE_TICKS = [0, 0.025, 0.05];
/** "1 request", "2 requests". */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const percent = (rate: number) => `${(rate * 100).toFixed(rate < 0.01 && rate > 0 ? 2 : 1)} %`;
const ms = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value} ms`);

export default function InsightsCharts({ range }: { range: InsightsRange }) {
  const dark = useComputedColorScheme('light') === 'dark';
  // Bars and lines grow in over 1.5 s unless the system asks for reduced motion.
  const animate = !useReducedMotion();
  const ink = dark ? '#c9c9c9' : '#333';
  const tick = tickOf(range);
  // Series colours mark the lines; text stays in the theme's ink so it keeps its contrast.
  const tipStyle = {
    contentStyle: { background: dark ? '#242424' : '#fff' },
    itemStyle: { color: ink },
    labelStyle: { color: ink },
  };
  const legend = <Legend formatter={(value) => <span style={{ color: ink }}>{value}</span>} />;
  const traffic = useInsights<Traffic>('traffic', range);
  const functions = useInsights<FunctionsInsights>('functions', range);
  const realtime = useInsights<RealtimeInsights>('realtime', range);
  const auth = useInsights<AuthInsights>('auth', range);
  const sizes = useInsights<SizesInsights>('sizes', range);
  const axes = (
    <>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="t" tickFormatter={tick} stroke={ink} minTickGap={24} />
    </>
  );
  const countAxis = <YAxis stroke={ink} allowDecimals={false} width={40} />;
  const tooltip = <Tooltip {...tipStyle} labelFormatter={(t) => new Date(String(t)).toLocaleString()} />;

  const pending = [traffic, functions, realtime, auth, sizes].find((q) => q.isPending);
  const failed = [traffic, functions, realtime, auth, sizes].find((q) => q.isError);
  if (failed) return <ErrorState error={failed.error} what="the charts" />;
  if (pending || !traffic.data || !functions.data || !realtime.data || !auth.data || !sizes.data) {
    return <Loading what="the charts" />;
  }
  const t = traffic.data;
  const requests = total(t.points, (p) => p.total);
  const errors = total(t.points, (p) => p.s5xx);
  const latest = [...t.points].reverse().find((p) => p.p95Ms !== null);
  const f = functions.data;
  const lastSize = [...sizes.data.points].reverse().find((p) => p.databaseBytes !== null);

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Card
        title="Requests"
        summary={`${count(requests, 'request')}, ${count(
          total(t.points, (p) => p.s4xx),
          'client error',
        )}`}
        link={<Link to={logsLink(t, 'requests')}>Requests in the logs</Link>}
      >
        <AreaChart data={t.points}>
          {axes}
          {countAxis}
          {tooltip}
          {legend}
          {STATUS_CLASSES.map((c) => (
            <Area
              key={c.key}
              isAnimationActive={animate}
              dataKey={c.key}
              name={c.name}
              stackId="s"
              stroke={c.colour}
              fill={c.colour}
            />
          ))}
        </AreaChart>
      </Card>
      <Card
        title="Error rate"
        summary={`${percent(requests > 0 ? errors / requests : 0)} of requests answered 5xx (${errors})`}
        link={<Link to={logsLink(t, 'requests', 'error')}>Server errors in the logs</Link>}
      >
        <LineChart data={t.points}>
          {axes}
          <YAxis
            stroke={ink}
            width={48}
            domain={[0, (max: number) => Math.max(max, 0.05)]}
            // Under the 5 % ceiling, three ticks (six did not fit the height: every other one was dropped).
            ticks={Math.max(0, ...t.points.map((p) => p.errorRate)) <= 0.05 ? RATE_TICKS : undefined}
            tickFormatter={(v: number) => `${Number((v * 100).toFixed(1))}%`}
          />
          <Tooltip
            {...tipStyle}
            formatter={(v) => percent(Number(v))}
            labelFormatter={(l) => new Date(String(l)).toLocaleString()}
          />
          <Line isAnimationActive={animate} dataKey="errorRate" name="5xx share" stroke={COLOURS.server} dot={false} />
        </LineChart>
      </Card>
      <Card
        title="Latency"
        summary={`Latest p50 ${ms(latest?.p50Ms)}, p95 ${ms(latest?.p95Ms)}`}
        link={<Link to={logsLink(t, 'requests')}>Slow requests in the logs</Link>}
      >
        <LineChart data={t.points}>
          {axes}
          <YAxis stroke={ink} width={64} tickFormatter={(v: number) => `${v} ms`} />
          {tooltip}
          {legend}
          <Line isAnimationActive={animate} dataKey="p50Ms" name="p50" stroke={COLOURS.a} dot={false} connectNulls />
          <Line
            isAnimationActive={animate}
            dataKey="p95Ms"
            name="p95"
            stroke={COLOURS.client}
            dot={false}
            connectNulls
          />
        </LineChart>
      </Card>
      <Card
        title="Function invocations"
        summary={`${count(
          total(f.points, (p) => p.total),
          'invocation',
        )}, ${total(f.points, (p) => p.s5xx)} failed`}
        link={<Link to={logsLink(f, 'functions')}>Function logs</Link>}
      >
        <BarChart data={f.points}>
          {axes}
          {countAxis}
          {tooltip}
          {legend}
          <Bar isAnimationActive={animate} dataKey="total" name="Invocations" fill={COLOURS.a} />
          <Bar isAnimationActive={animate} dataKey="s5xx" name="Errors" fill={COLOURS.server} />
        </BarChart>
      </Card>
      <Card
        title="Realtime"
        summary={`${count(
          total(realtime.data.points, (p) => p.messages),
          'message',
        )}; busiest channel ${realtime.data.channels[0]?.channel ?? '—'}`}
        link={<Link to="/realtime">Realtime channels</Link>}
      >
        <ComposedChart data={realtime.data.points}>
          {axes}
          {countAxis}
          {tooltip}
          {legend}
          <Bar isAnimationActive={animate} dataKey="messages" name="Messages" fill={COLOURS.a} />
          <Line isAnimationActive={animate} dataKey="connections" name="Connections" stroke={COLOURS.b} dot={false} />
        </ComposedChart>
      </Card>
      <Card
        title="Sign-ups and sign-ins"
        summary={`${count(
          total(auth.data.points, (p) => p.signUps),
          'sign-up',
        )}, ${count(
          total(auth.data.points, (p) => p.signIns),
          'sign-in',
        )}`}
        link={<Link to="/users">Users</Link>}
      >
        <BarChart data={auth.data.points}>
          {axes}
          {countAxis}
          {tooltip}
          {legend}
          <Bar isAnimationActive={animate} dataKey="signUps" name="Sign-ups" fill={COLOURS.b} />
          <Bar isAnimationActive={animate} dataKey="signIns" name="Sign-ins" fill={COLOURS.a} />
        </BarChart>
      </Card>
      <Card
        title="Database and storage size"
        summary={`Database ${formatBytes(lastSize?.databaseBytes)}, storage ${formatBytes(lastSize?.storageBytes)}`}
        link={<Link to="/storage">Storage</Link>}
      >
        <LineChart data={sizes.data.points}>
          {axes}
          <YAxis stroke={ink} width={64} tickFormatter={(v: number) => formatBytes(v)} />
          <Tooltip
            formatter={(v) => formatBytes(Number(v))}
            labelFormatter={(l) => new Date(String(l)).toLocaleString()}
          />
          {legend}
          <Line
            isAnimationActive={animate}
            dataKey="databaseBytes"
            name="Database"
            stroke={COLOURS.a}
            dot={false}
            connectNulls
          />
          <Line
            isAnimationActive={animate}
            dataKey="storageBytes"
            name="Storage"
            stroke={COLOURS.b}
            dot={false}
            connectNulls
          />
        </LineChart>
      </Card>
    </SimpleGrid>
  );
}
