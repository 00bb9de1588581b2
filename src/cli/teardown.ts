// The one teardown of `recdeck run`: a stack of the resources the start has acquired so far. Each is
// deferred here the moment it is had, and released in the reverse order of acquisition, so what was
// acquired later (and may lean on what came before) goes first. The same release serves a start that
// fails half-way (exactly what was acquired until then is released) and a stop: there is no second,
// hand-ordered list to keep in step with the first.
import { messageOf } from '../api/errors.js';
import type { Logger } from '../engine/log.js';

/** Gives a resource back: closes a server or a file, stops a poller, ends a subscription. */
export type Release = () => void | Promise<void>;

export class Teardown {
  /** What is held, in the order it was acquired. */
  private readonly held: Array<{ name: string; release: Release }> = [];
  private releasing: Promise<void> | null = null;

  constructor(private readonly log: Pick<Logger, 'error'>) {}

  /**
   * Holds a resource just acquired until the teardown: `name` says what it is in a failure's log line.
   * Deferring once the teardown has begun is a fault of the wiring (nothing would release it), so it throws.
   */
  defer(name: string, release: Release): void {
    if (this.releasing) throw new Error(`${name}: acquired after the teardown began; nothing would release it`);
    this.held.push({ name, release });
  }

  /**
   * Releases everything held, the last acquired first, each awaited before the next. A release that
   * fails is logged and the others are still released (a server that would not close must not keep a
   * device from being blanked). Idempotent: a second call, or one made while the first runs, waits for
   * the same teardown and releases nothing twice.
   */
  release(): Promise<void> {
    this.releasing ??= this.releaseAll();
    return this.releasing;
  }

  private async releaseAll(): Promise<void> {
    for (const { name, release } of this.held.splice(0).reverse()) {
      try {
        await release();
      } catch (error) {
        this.log.error(`stopping: ${name}: ${messageOf(error)}; the rest is released`);
      }
    }
  }
}
