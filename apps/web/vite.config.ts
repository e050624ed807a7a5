import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `vite dev` proxies the API and the run socket to a studio server (`pnpm studio serve --port 8080`).
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const target = env.STUDIO_SERVER ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': target,
      '/ws': { target: target.replace(/^http/, 'ws'), ws: true },
    },
  },
  build: { chunkSizeWarningLimit: 1200 },
});
