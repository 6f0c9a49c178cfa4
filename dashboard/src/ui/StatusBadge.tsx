// A badge whose colour says good, bad or neutral, in shades dark enough for white text to pass
// WCAG AA at badge size (teal and red at Mantine's shade 8 do not).
import { Badge, type BadgeProps } from '@mantine/core';

export type Tone = 'good' | 'bad' | 'neutral';

export const TONE_COLOR: Record<Tone, string> = { good: 'teal.9', bad: 'red.9', neutral: 'gray.7' };

export function StatusBadge({ tone, ...badge }: BadgeProps & { tone: Tone }) {
  return <Badge color={TONE_COLOR[tone]} {...badge} />;
}
