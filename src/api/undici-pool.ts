// undici's Pool, required from its own file rather than from the package's index: the client needs the
// pool and its dispatch() (text-request.ts) and nothing else of undici. The index loads all of undici
// (110 files: fetch, WebSocket, caches, mocks, the request API) and its cookie module reads
// globalThis.Headers, which makes Node compile its own bundled copy of undici too: 190-240 ms of CPU
// against 55-70 for the pool's 22 files, paid by every process that talks to a recorder (`recdeck run`,
// `call`, `watch`) before its first request (docs/performance.md, "CommonJS packages required").
// The class is the one the index exports (the index requires this same file: test/api/undici-pool.test.ts
// checks it). The Stream Deck plugin's bundle takes it from the index instead (scripts/build-plugin.mjs).
import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

export const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
