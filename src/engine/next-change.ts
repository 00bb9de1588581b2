// When what a control shows next changes by time alone. A picture is derived from the state and the
// clock; the state changes only by events that each refresh what is shown (answers, input, commands'
// answers, the session's timers, fetched previews and meters), and between them only the clock moves a
// picture, at moments known in advance: a running take's next whole second, a shown age's next second,
// the moment data turns stale, a dialog's next flash phase or text page, a hold ring's next step, a
// failure's next reason page. Each derivation that reads the clock notes here when what it read next
// changes, so the moment cannot drift from what is shown; the session refreshes a control at the
// moment its picture noted, and at no other moment for time's sake.
//
// The engine's clock counts whole milliseconds (Date.now, and virtual time in tests): a moment is the
// first whole millisecond at which the value differs.

/** Collects the earliest moment, after `now`, at which anything derived at `now` changes by time alone. */
export class NextChange {
  private earliest = Infinity;

  constructor(readonly now: number) {}

  /** Something read changes at `moment`; null, or a moment not after now, is no change to wait for. */
  at(moment: number | null): void {
    if (moment !== null && moment > this.now && moment < this.earliest) this.earliest = moment;
  }

  /** The earliest moment noted, or null when nothing read changes by time alone. */
  get moment(): number | null {
    return Number.isFinite(this.earliest) ? this.earliest : null;
  }
}

/**
 * The moment a count of whole periods since `origin` (floor((t - origin) / periodMs), at least `count`
 * where the count is held up, as a reported duration can be) steps on from `count`: seconds of a clock or
 * an age, flash phases, pages, ring steps.
 */
export function stepAfter(origin: number, periodMs: number, count: number): number {
  return Math.ceil(origin + (count + 1) * periodMs);
}

/** The first moment after `until`, the last moment something counts as live. */
export function endOf(until: number): number {
  return Math.floor(until) + 1;
}
