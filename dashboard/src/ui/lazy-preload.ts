// A lazily loaded component whose chunk can be asked for before it renders: a screen that shows it
// only once its data has arrived starts the chunk together with the query, so no second spinner
// flashes after the data (the browser keeps one copy of each imported module).
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

export type Preloadable<P extends object> = LazyExoticComponent<ComponentType<P>> & { preload(): void };

export function lazyWithPreload<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  const once = () => {
    loading ??= load();
    return loading;
  };
  return Object.assign(lazy(once), {
    preload() {
      once().catch(() => undefined); // a failure shows when it renders (the Suspense boundary's error)
    },
  });
}
