// Ctrl+C and SIGTERM as a promise, listened for from the moment it is called.
//
// Until a listener is installed, SIGINT's default action kills the process, so a command that prints
// "ready" and only then listens loses a signal sent right after the line it printed (a supervisor or
// a test acts on that line). Commands call this first and print after.
export function interrupted(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
