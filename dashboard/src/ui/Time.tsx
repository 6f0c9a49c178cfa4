// A stored time as people read it at a glance ("5 min ago", "in 2 h"), the exact local date and
// time on hover (and in the element's datetime); "—" when there is none.
import { formatTime } from './format';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/** "5 min. ago" for a time `seconds` from now (negative: past). */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const [unit, size] = UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? ['second', 1];
  return relative.format(Math.round(seconds / size), unit);
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso || Number.isNaN(new Date(iso).getTime())) return <>{formatTime(iso)}</>;
  const exact = formatTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      {relativeTime(iso)}
    </time>
  );
}
