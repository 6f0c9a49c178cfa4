// Builds the web console into dist/dashboard, served by Plinth at /dashboard (hashed assets under
// assets/, cached for a year by the server; one chunk per screen through React.lazy).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': 'http://localhost:7130' } },
});
