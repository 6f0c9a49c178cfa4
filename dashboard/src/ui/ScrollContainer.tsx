// A horizontally scrolling region that keyboard users can focus and scroll (axe:
// scrollable-region-focusable), for wide tables on a phone whose rows may hold nothing focusable.
import { Box } from '@mantine/core';
import type { ReactNode } from 'react';

export function ScrollContainer({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box component="section" aria-label={label} tabIndex={0} style={{ overflowX: 'auto' }}>
      {children}
    </Box>
  );
}
