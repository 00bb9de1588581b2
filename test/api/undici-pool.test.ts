// src/api/undici-pool.ts takes undici's Pool from the file that defines it, sparing a start the rest of
// undici: it must be the very class undici exports (so the client behaves as it did over the package's
// index), and what a start loads is checked by test/cli/run.test.ts's module list.
import { Pool as ExportedPool } from 'undici';
import { expect, it } from 'vitest';
import { Pool } from '../../src/api/undici-pool.js';

it("is the Pool undici exports (its index requires the same file), with the dispatch the client's requests use", () => {
  expect(Pool).toBe(ExportedPool);
  expect(typeof Pool.prototype.dispatch).toBe('function');
});
