// A bus file the command line named and recdeck cannot use (bus/key-file.ts: BusFileError) is a mistake
// in the command line: a usage error, with the same words. Kept apart from usage-error.ts, which every
// command loads, so that a command that never touches the bus (`recdeck call`) loads nothing of it.
import { BusFileError } from '../bus/key-file.js';
import { UsageError } from './usage-error.js';

/** What `read` returns, a bus file it cannot use being a usage error. */
export async function usageErrorOf<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw error instanceof BusFileError ? new UsageError(error.message) : error;
  }
}

/** usageErrorOf for what is read at once. */
export function usageErrorOfSync<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof BusFileError ? new UsageError(error.message) : error;
  }
}
