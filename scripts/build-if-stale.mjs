// `npm start` in a clone: builds dist/ first when a source or config file is newer than the built CLI,
// and says nothing when it is up to date (npm start then execs the bridge; see package.json).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';

const modified = (file) => statSync(file).mtimeMs;
let built = 0;
try {
  built = modified('dist/cli/main.js');
} catch {
  // Not built yet.
}
const inputs = ['package.json', 'tsconfig.json', 'tsconfig.build.json', ...readdirSync('src', { recursive: true }).map((file) => `src/${file}`)];
if (inputs.some((file) => modified(file) > built)) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
