// A wide table on a narrow screen: it scrolls sideways inside this region, which takes keyboard
// focus (axe-core: a scrollable region must be reachable by keyboard), and the page does not.
import { Box } from '@mantine/core';
import type { ReactNode } from 'react';

export function HorizontalScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box component="section" aria-label={label} tabIndex={0} style={{ overflowX: 'auto' }}>
      {children}
    </Box>
  );
}
