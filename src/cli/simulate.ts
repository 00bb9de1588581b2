// `recdeck simulate`: runs the simulated Recording Control Service until interrupted.
import { isGridSize } from '../api/channel.js';
import { startSimulator } from '../simulator/server.js';
import { interrupted } from './interrupted.js';
import { HELP_FLAG, parseFlags, wholeNumber, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { UsageError } from './usage-error.js';
import { realClock } from '../api/clock.js';

export const simulateCommand = {
  ...COMMAND_OVERVIEW.simulate,
  flags: {
    port: { type: 'string', default: '9000', value: 'PORT', description: 'port to listen on (0: any free port)' },
    host: { type: 'string', default: '127.0.0.1', value: 'HOST', description: 'address to listen on' },
    token: { type: 'string', value: 'perm:<uuid>', description: 'the token clients must send', shownDefault: 'a new random one' },
    grid: { type: 'string', default: '4', value: 'N', description: 'channels in the grid at start: 1, 4, 9 or 16' },
    project: { type: 'string', value: 'FILE', description: 'a project file to start from', shownDefault: 'the demo project' },
    seed: { type: 'string', default: '1', value: 'N', description: 'seed of the pseudo-random faults and meters' },
    ...HELP_FLAG,
  },
} satisfies CommandSpec;

export async function simulate(args: string[]): Promise<void> {
  const { values } = parseFlags(simulateCommand, args);
  const port = wholeNumber('--port', values.port, 0, 65535);
  const grid = wholeNumber('--grid', values.grid, 1, 16);
  if (!isGridSize(grid)) throw new UsageError(`--grid: expected 1, 4, 9 or 16, got ${values.grid}`);
  const seed = wholeNumber('--seed', values.seed, 0, 2 ** 32 - 1);

  const stopped = interrupted();
  const simulator = await startSimulator({ clock: realClock,
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
  await stopped;
  await simulator.close();
}
