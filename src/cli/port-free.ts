// Whether the web port can be had, asked before the slow part of the start (profiles, simulator,
// recorders): a port in use fails the start at once instead of after everything else was set up.
import { createServer } from 'node:net';
import { UsageError } from './usage-error.js';

export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return; // any free port: nothing to check
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new UsageError(`--web-port: port ${port} on ${host} is in use; give another --web-port, or --no-web`));
      // Anything else (no such address, no permission) is left to the real listen, which reports it.
      else resolve();
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
