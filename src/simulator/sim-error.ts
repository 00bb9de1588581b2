/** A request the simulated recorder refuses: answered 400 with {"Error": message}, nothing changed. */
export class SimError extends Error {
  override readonly name = 'SimError';
}
