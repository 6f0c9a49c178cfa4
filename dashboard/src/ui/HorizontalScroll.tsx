// A wide table on a narrow screen: it scrolls sideways inside a region that takes keyboard focus
// (axe-core: a scrollable region must be reachable by keyboard, and arrow keys scroll it), keeping
// the page itself from overflowing.
import type { ReactNode } from 'react';

export function HorizontalScroll({
  label,
  minWidth,
  children,
}: {
  label: string;
  /** The content's narrowest width, past which the region scrolls instead of squeezing it. */
  minWidth?: number;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
    <section aria-label={label} tabIndex={0} style={{ overflowX: 'auto', maxWidth: '100%' }}>
      {minWidth ? <div style={{ minWidth }}>{children}</div> : children}
    </section>
  );
}
