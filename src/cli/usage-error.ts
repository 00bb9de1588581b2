import { BusFileError } from '../bus/key-file.js';
/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What `read` returns, a bus file it cannot use (bus/key-file.ts: BusFileError) being a usage error, with the same words. */
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
