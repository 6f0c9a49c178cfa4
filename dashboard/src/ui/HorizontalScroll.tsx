// A wide table on a narrow screen: it scrolls sideways inside a region that takes keyboard focus
// (so arrow keys scroll it), keeping the page itself from overflowing.
import type { ReactNode } from 'react';

export function HorizontalScroll({
  label,
  minWidth,
  children,
}: {
  label: string;
  minWidth: number;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
    <section aria-label={label} tabIndex={0} style={{ overflowX: 'auto', maxWidth: '100%' }}>
      <div style={{ minWidth }}>{children}</div>
    </section>
  );
}
