// `recdeck simulate`: runs the simulated Recording Control Service until interrupted.
import { parseArgs } from 'node:util';
import { isGridSize } from '../api/channel.js';
import { startSimulator } from '../simulator/server.js';
import { UsageError } from './usage-error.js';

export const simulateUsage = `recdeck simulate [--port 9000] [--host 127.0.0.1] [--token perm:<uuid>] [--grid 4] [--project FILE] [--seed N]`;

export async function simulate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '9000' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
      grid: { type: 'string', default: '4' },
      project: { type: 'string' },
      seed: { type: 'string', default: '1' },
    },
    strict: true,
  });
  const port = wholeNumber('--port', values.port, 0, 65535);
  const grid = wholeNumber('--grid', values.grid, 1, 16);
  if (!isGridSize(grid)) throw new UsageError(`--grid: expected 1, 4, 9 or 16, got ${values.grid}`);
  const seed = wholeNumber('--seed', values.seed, 0, 2 ** 32 - 1);

  const simulator = await startSimulator({
    port,
    host: values.host,
    grid,
    seed,
    ...(values.token ? { token: values.token } : {}),
    ...(values.project ? { projectFile: values.project } : {}),
  });
  process.stdout.write(
    [
      `Recording Control Service simulator listening on ${simulator.url}`,
      `  token:   ${simulator.token}   (send: Authorization: Bearer ${simulator.token})`,
      `  try:     curl -H 'Authorization: Bearer ${simulator.token}' ${simulator.url}/api/channels`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await simulator.close();
}

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${text}`);
  return value;
}
