// npm's `prepare` (npm install or npm ci in a clone, npm pack, npm install from a git URL): builds
// dist/ with TypeScript. With the development dependencies left out (--omit=dev) there is no TypeScript
// to build with: that is said, and the install goes on (dist/ as it is; npm start builds when it can).
// dist/ is emptied first, so that a file whose source is gone is never packed or run.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript/package.json');
} catch {
  process.stderr.write('recdeck: TypeScript is not installed (--omit=dev), so dist/ is not built here; build it with the dev dependencies (npm ci && npm run build) or install the packed tarball (npm pack)\n');
  process.exit(0);
}
rmSync('dist', { recursive: true, force: true });
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
