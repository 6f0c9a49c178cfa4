// The dashboard's entry: theme (light/dark, remembered), server-state cache, the API client, the app.
import '@mantine/core/styles.css';
import { Anchor, type CSSVariablesResolver, createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ApiClient } from './api/client';
import { ApiContext } from './api/context';

// Shade 8 keeps white text on filled buttons above WCAG AA contrast (axe-core checks it).
// Links are underlined: in the dark theme a link's colour alone is too close to the text around it
// (axe-core's link-in-text-block).
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  components: { Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }) },
});
// Dimmed text (input descriptions) darker than Mantine's default, to keep WCAG AA contrast.
const readableDimmed: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});
const queries = new QueryClient({ defaultOptions: { queries: { retry: 1, staleTime: 10_000 } } });
const api = new ApiClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={readableDimmed}>
      <QueryClientProvider client={queries}>
        <ApiContext.Provider value={api}>
          <App />
        </ApiContext.Provider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
