// The bridge's Node flags are the same wherever it is started: the bin's shebang and npm start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRIDGE_NODE_FLAGS } from '../../src/cli/node-flags.js';

const root = join(import.meta.dirname, '../..');

describe('bridge node flags', () => {
  it('the bin and npm start carry them', () => {
    const shebang = readFileSync(join(root, 'src/cli/main.ts'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${BRIDGE_NODE_FLAGS.join(' ')}`);
    const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start).toContain(`node ${BRIDGE_NODE_FLAGS.join(' ')} dist/cli/main.js run`);
  });
});
