// Turns one control's downs and ups into what its binding does: press (at once, after a hold that fills
// a ring, or on a second press), a long-press action of its own, and release. Safety first: a
// confirmation not completed fires nothing.
import type { Binding } from '../profiles/schema.js';
import type { PictureOverlay } from './picture.js';

export type GestureFire = 'press' | 'hold' | 'release';

/** How often the hold ring advances; 25 frames a second looks smooth and costs little to draw. */
const RING_FRAME_MS = 40;

export class ControlGestures {
  private downAt: number | null = null;
  private holdTimer: NodeJS.Timeout | null = null;
  private ringTimer: NodeJS.Timeout | null = null;
  private armedTimer: NodeJS.Timeout | null = null;
  /** The long-press (or hold-to-confirm) already fired during this hold. */
  private holdFired = false;

  constructor(
    private readonly binding: Binding,
    private readonly fire: (what: GestureFire) => void,
    private readonly showOverlay: (overlay: PictureOverlay | null) => void,
    private readonly now: () => number = Date.now,
  ) {}

  down(): void {
    if (this.downAt !== null) return; // a repeated down without an up changes nothing
    this.downAt = this.now();
    this.holdFired = false;
    const holdMs = this.holdMs();
    if (holdMs !== null) {
      this.holdTimer = setTimeout(() => this.completeHold(), holdMs);
      this.ringTimer = setInterval(() => this.showOverlay({ hold: Math.min(1, (this.now() - (this.downAt ?? this.now())) / holdMs) }), RING_FRAME_MS);
      this.showOverlay({ hold: 0 });
      return;
    }
    this.shortPress();
  }

  up(): void {
    if (this.downAt === null) return;
    this.downAt = null;
    const holding = this.holdTimer !== null;
    this.stopHold();
    if (holding) {
      this.showOverlay(null);
      // A hold that was only a confirmation does nothing when let go early; a long-press binding
      // with a press action treats the early release as a short press.
      if (this.binding.hold !== undefined && this.binding.press !== undefined) this.shortPress();
    }
    if (this.binding.release !== undefined) this.fire('release');
  }

  dispose(): void {
    this.stopHold();
    if (this.armedTimer) clearTimeout(this.armedTimer);
    this.armedTimer = null;
  }

  /** The hold this control waits for on down: a hold-to-confirm, or a long-press action. */
  private holdMs(): number | null {
    const { confirm, hold } = this.binding;
    if (confirm && 'hold' in confirm) return confirm.hold;
    return hold?.ms ?? null;
  }

  private completeHold(): void {
    this.stopHold();
    this.holdFired = true;
    this.showOverlay(null);
    const { confirm } = this.binding;
    this.fire(confirm && 'hold' in confirm ? 'press' : 'hold');
  }

  /** A press that is not (or no longer) a hold: at once, or as the second of a double press. */
  private shortPress(): void {
    if (this.binding.press === undefined || this.holdFired) return;
    const { confirm } = this.binding;
    if (confirm && 'double' in confirm) {
      if (this.armedTimer) {
        clearTimeout(this.armedTimer);
        this.armedTimer = null;
        this.showOverlay(null);
        this.fire('press');
      } else {
        this.showOverlay({ armed: true });
        this.armedTimer = setTimeout(() => {
          this.armedTimer = null;
          this.showOverlay(null);
        }, confirm.double);
      }
      return;
    }
    this.fire('press');
  }

  private stopHold(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    if (this.ringTimer) clearInterval(this.ringTimer);
    this.holdTimer = null;
    this.ringTimer = null;
  }
}
