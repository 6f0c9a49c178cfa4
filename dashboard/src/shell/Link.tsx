// An anchor to a client route: a real href (open in a new tab works), navigation without reload.
import { Anchor } from '@mantine/core';
import type { MouseEvent, ReactNode } from 'react';
import { hrefOf, navigate } from './route';

export function Link({ to, children }: { to: string; children: ReactNode }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    // `inherit`: the size of the text around it (a link in a table or a breadcrumb is not larger).
    <Anchor href={hrefOf(to)} onClick={onClick} inherit>
      {children}
    </Anchor>
  );
}
