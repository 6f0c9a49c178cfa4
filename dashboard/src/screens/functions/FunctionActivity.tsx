// A function's invocations, errors and p95 latency over the last day, per 10 minutes
// (/api/insights/functions?slug=; recharts: loaded with this component only).
import { Paper, Stack, Text, Title, useComputedColorScheme } from '@mantine/core';
import { useReducedMotion } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useApi } from '../../api/context';
import { Link } from '../../shell/Link';
import { ErrorState, Loading } from '../../shell/states';
import { type FunctionsInsights, logsLink, tickOf } from '../overview/insights-types';

export default function FunctionActivity({ slug }: { slug: string }) {
  const api = useApi();
  const dark = useComputedColorScheme('light') === 'dark';
  // Bars and lines grow in over 1.5 s unless the system asks for reduced motion.
  const animate = !useReducedMotion();
  const ink = dark ? '#c9c9c9' : '#333';
  const activity = useQuery({
    queryKey: ['insights', 'functions', 'day', slug],
    queryFn: () => api.json<FunctionsInsights>(`/api/insights/functions?range=day&slug=${encodeURIComponent(slug)}`),
    refetchInterval: 60_000,
  });
  if (activity.isPending) return <Loading what="the function's activity" />;
  if (activity.isError) return <ErrorState error={activity.error} what="the function's activity" />;
  const data = activity.data;
  const mine = data.functions.find((f) => f.slug === slug);
  return (
    <Paper withBorder p="md" role="figure" aria-label="Activity over the last day">
      <Stack gap={4}>
        <Title order={2} size="h4">
          Activity over the last day
        </Title>
        <Text size="sm">
          {mine
            ? `${mine.invocations} invocation${mine.invocations === 1 ? '' : 's'}, ${mine.errors} failed, p95 ${mine.p95Ms ?? '—'} ms`
            : 'Not invoked in the last day.'}
        </Text>
        <ResponsiveContainer width="100%" height={180}>
          <ComposedChart data={data.points}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="t" tickFormatter={tickOf('day')} stroke={ink} minTickGap={24} />
            <YAxis yAxisId="n" stroke={ink} allowDecimals={false} width={40} />
            <YAxis yAxisId="ms" orientation="right" stroke={ink} width={56} unit=" ms" />
            <Tooltip
              contentStyle={{ background: dark ? '#242424' : '#fff' }}
              itemStyle={{ color: ink }}
              labelStyle={{ color: ink }}
              labelFormatter={(t) => new Date(String(t)).toLocaleString()}
            />
            <Legend formatter={(value) => <span style={{ color: ink }}>{value}</span>} />
            <Bar isAnimationActive={animate} yAxisId="n" dataKey="total" name="Invocations" fill="#364fc7" />
            <Bar isAnimationActive={animate} yAxisId="n" dataKey="s5xx" name="Errors" fill="#c92a2a" />
            <Line
              isAnimationActive={animate}
              yAxisId="ms"
              dataKey="p95Ms"
              name="p95"
              stroke="#e67700"
              dot={{ r: 2 }}
              connectNulls
            />
          </ComposedChart>
        </ResponsiveContainer>
        <Link to={logsLink(data, 'functions')}>Function logs</Link>
      </Stack>
    </Paper>
  );
}
