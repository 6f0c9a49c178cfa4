// Tokens per UTC day, input and output stacked (recharts: loaded with this component only).
import { useReducedMotion } from '@mantine/hooks';
import { useComputedColorScheme } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DayTotal } from './usage-by-day';

export default function UsageChart({ days }: { days: DayTotal[] }) {
  const dark = useComputedColorScheme('light') === 'dark';
  // Bars and lines grow in over 1.5 s unless the system asks for reduced motion.
  const animate = !useReducedMotion();
  const ink = dark ? '#c9c9c9' : '#333';
  return (
    <figure aria-label="Tokens per day" style={{ margin: 0 }}>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={days} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="day" stroke={ink} />
          <YAxis stroke={ink} allowDecimals={false} />
          <Tooltip />
          <Legend />
          <Bar isAnimationActive={animate} dataKey="inputTokens" name="Input tokens" stackId="tokens" fill="#364fc7" />
          <Bar
            isAnimationActive={animate}
            dataKey="outputTokens"
            name="Output tokens"
            stackId="tokens"
            fill="#0ca678"
          />
        </BarChart>
      </ResponsiveContainer>
      <figcaption style={{ fontSize: 12 }}>Tokens per UTC day (input and output).</figcaption>
    </figure>
  );
}
