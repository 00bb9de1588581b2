// Waits, bounded, for something a real process, socket or browser does (never for engine timing, which
// runs on virtual time): the check is asked again every few ms until it holds.
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
