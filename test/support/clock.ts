/** A clock tests move by hand, starting at the real time so local-time schedules behave as in life. */
export class ManualClock {
  constructor(public ms = Date.now()) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}
