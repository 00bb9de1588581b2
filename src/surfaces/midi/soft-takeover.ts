// Faders that cannot be moved by the bridge would make the gain jump to wherever the fader happens to
// stand. Soft takeover holds such a fader back until it reaches the gain (or is pushed across it), then
// lets it follow. A motorised fader needs none of that: it is moved to the gain instead, but not while a
// hand is on it (the surface's DeviceOutput holds its levels back meanwhile).
//
// "Where the gain is" comes from the level the engine hands the control's output: for a fader bound to
// gain-fader the session sends the gain on that binding's own travel, (gainDb − min) / (max − min), the
// inverse of how a position p becomes a gain (min + p·(max − min)), so position and level always agree.
// Pure: time comes in as arguments.

export interface SoftTakeoverOptions {
  /** How close (0..1) counts as "at the gain": a bit more than one 7-bit step. */
  tolerance?: number;
  /** After the last move, levels that differ from it are still taken as the echo of that move. */
  graceMs?: number;
}

const DEFAULT_TOLERANCE = 1.5 / 127;
/** How long after a move the hand counts as on the control. */
export const DEFAULT_GRACE_MS = 1000;

export class SoftTakeover {
  private readonly tolerance: number;
  private readonly graceMs: number;
  private target: number | null = null;
  private engaged = false;
  private lastPhysical: number | null = null;
  private lastPassed: number | null = null;
  private lastMoveAt = Number.NEGATIVE_INFINITY;

  constructor(options: SoftTakeoverOptions = {}) {
    this.tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  }

  /** The fader moves the gain now (it reached it, or no gain is known to protect). */
  get pickedUp(): boolean {
    return this.engaged || this.target === null;
  }

  /** The engine's level for this fader: where the gain is now. */
  setTarget(level: number, now: number): void {
    this.target = level;
    if (!this.engaged || this.lastPassed === null) return;
    // While the hand is moving the fader, levels lag behind it (they are the echo of earlier moves).
    // Once it rests, a level away from where the fader left the gain means someone else changed the
    // gain (another surface, the recorder's own screen): the fader must pick it up again.
    if (now - this.lastMoveAt >= this.graceMs && Math.abs(level - this.lastPassed) > this.tolerance) this.engaged = false;
  }

  /** The fader moved to a position: the position to pass on, or null while it has not picked up the gain. */
  move(position: number, now: number): number | null {
    const previous = this.lastPhysical;
    this.lastPhysical = position;
    const target = this.target;
    // No level has come for this fader (its binding shows no meter, or the gain is not known yet):
    // there is nothing to take over from, so the fader works directly.
    if (target !== null && !this.engaged) {
      const reached = Math.abs(position - target) <= this.tolerance;
      const crossed = previous !== null && (previous - target) * (position - target) < 0;
      if (!reached && !crossed) return null;
      this.engaged = true;
    }
    this.lastPassed = position;
    this.lastMoveAt = now;
    return position;
  }
}
