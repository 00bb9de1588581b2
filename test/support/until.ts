// Waits, bounded, for something a real process, socket or browser does (never for engine timing, which
// runs on virtual time): the check is asked again every few ms until it holds.
/**
 * How long a wait on a real process, socket or browser lasts before it fails: long, because on a loaded
 * 2-core machine (a second copy of the suite beside this one) one step can take seconds, and a step that
 * comes is waited for only as long as it takes.
 */
export const WAIT_MS = 15_000;
/** A real-time test's own bound (vitest's e2e project's testTimeout): several of those waits in a row. */
export const TEST_MS = 60_000;

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
