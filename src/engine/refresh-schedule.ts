// When a surface's pictures next change by time alone. Between the events that refresh every picture only
// the clock moves them, and each picture says when it next changes (next-change.ts); this keeps those
// moments, one per control, with one timer for the earliest: when it fires, a refresh of the controls
// whose moment has come is posted as picture work, instead of recomputing every picture at a frame rate.
import type { Subscription } from 'rxjs';
import type { EngineTime } from './engine-time.js';
import type { ControlDefinition } from './surface.js';
import type { Slice, WorkScheduler } from './work-scheduler.js';

export class RefreshSchedule {
  /** When each control's picture next changes by time alone, as noted when it was last derived. */
  private readonly changesAt = new Map<string, number>();
  /** The one timer for the earliest of those moments. */
  private nextChange: { at: number; action: Subscription } | null = null;

  /**
   * `refreshDue` runs as picture work, keyed `due:<surface>`, when the earliest moment has come; it
   * derives what its slice has time for and calls `again()` for the rest.
   */
  constructor(
    private readonly surfaceId: string,
    private readonly time: EngineTime,
    private readonly work: WorkScheduler,
    private readonly refreshDue: (slice: Slice) => void,
  ) {}

  /** A control's picture was derived: it next changes by time alone at `changesAt` (null: it does not). */
  note(control: string, changesAt: number | null): void {
    if (changesAt === null) this.changesAt.delete(control);
    else this.changesAt.set(control, changesAt);
  }

  /** The controls whose moment to change by time alone has come. */
  due(controls: readonly ControlDefinition[]): ControlDefinition[] {
    const now = this.time.now();
    return controls.filter((control) => (this.changesAt.get(control.id) ?? Infinity) <= now);
  }

  /** One timer, for the earliest moment a picture shown changes by time alone; none when none does. */
  schedule(): void {
    let earliest = Infinity;
    for (const at of this.changesAt.values()) earliest = Math.min(earliest, at);
    if (this.nextChange?.at === earliest) return;
    this.nextChange?.action.unsubscribe();
    this.nextChange = null;
    if (earliest === Infinity) return;
    const action = this.time.scheduler.schedule(() => {
      this.nextChange = null;
      this.again();
    }, Math.max(0, earliest - this.time.now()));
    this.nextChange = { at: earliest, action };
  }

  /**
   * The due refresh, in line (again: its slice ran out before every due control was derived). What it
   * derives is what is due when its turn comes: the controls derived already are not, their moment is
   * noted anew.
   */
  again(): void {
    this.work.post('pictures', `due:${this.surfaceId}`, this.refreshDue);
  }

  /** Nothing shown is waited on (stopped, or nobody sees the surface). */
  forget(): void {
    this.changesAt.clear();
    this.nextChange?.action.unsubscribe();
    this.nextChange = null;
  }

  /** The session stops: nothing is waited on, and a due refresh already in line is dropped. */
  stop(): void {
    this.forget();
    this.work.cancel(`due:${this.surfaceId}`);
  }
}
