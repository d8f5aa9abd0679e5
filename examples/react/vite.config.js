import { defineConfig } from 'vite';

// React 19 without a plugin: Vite compiles JSX with the automatic runtime (react/jsx-runtime).
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
});
