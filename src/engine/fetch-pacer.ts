// Paces the fetches of one kind of extra (previews, meters) so they never pile up and never crowd out
// the state polls: an item is fetched once at a time (a preview still wanted when its last fetch ends
// is fetched again, never queued twice), a bounded number are under way at once, and an item is fetched
// no more often than its interval or twice the time its last fetch took, whichever is longer, so the
// extras back off as the recorder slows while the polls keep their pace on their own connections.
// Items waiting longest go first. Its owner may also space the fetches out by whole intervals (`every`:
// the bridge's previews, while the bridge is short of time; see picture-pace.ts previewEvery), asked at
// each pump, so a slower pace takes effect at the next tick and a calm one comes back as quickly.

/**
 * Share of the interval by which an item may come due early. Ticks come at the interval and a round's
 * items start one after another as slots free up, so an item started a few ms after its tick would
 * otherwise miss the next tick by those few ms and be fetched only every other interval.
 */
const ROUND_SLACK = 0.25;

interface ItemPace {
  /** When its last fetch started, or null if never. */
  startedAt: number | null;
  /** How long the recorder took to answer its last fetch. */
  tookMs: number;
  busy: boolean;
}

export class FetchPacer<T extends string | number> {
  private readonly items = new Map<T, ItemPace>();
  private underWay = 0;

  constructor(
    private readonly options: {
      /** The interval the owner ticks at (pump), and each item's nominal spacing. */
      intervalMs: number;
      /** How many intervals apart an item is fetched now (1 and up; default 1), asked at each pump. */
      every?: () => number;
      /** Fetches under way at once. */
      concurrency: number;
      now: () => number;
      /** The items wanted now (what visible controls show). */
      wanted: () => readonly T[];
      /** Fetches an item; resolves with how long the recorder took to answer (what the pace follows). */
      fetch: (item: T) => Promise<number>;
    },
  ) {}

  /** Starts the fetches that are due among the items wanted now, within the bound (called on ticks and as fetches end). */
  pump(): void {
    const now = this.options.now();
    const wanted = this.options.wanted();
    const every = Math.max(1, this.options.every?.() ?? 1);
    for (const item of [...this.items.keys()]) if (!wanted.includes(item) && !this.items.get(item)?.busy) this.items.delete(item);
    const due = wanted
      .map((item) => ({ item, pace: this.paceOf(item) }))
      .filter(({ pace }) => !pace.busy && (pace.startedAt === null || now - pace.startedAt >= this.spacingOf(pace, every)))
      .sort((a, b) => (a.pace.startedAt ?? -Infinity) - (b.pace.startedAt ?? -Infinity));
    for (const { item, pace } of due) {
      if (this.underWay >= this.options.concurrency) return;
      void this.run(item, pace, now);
    }
  }

  /** Fetches under way now. */
  get inFlight(): number {
    return this.underWay;
  }

  /**
   * How far apart an item's fetches are meant to be now: its `every` intervals, or twice its last fetch
   * time when that is longer (what the owner judges the age of what it fetched against). `tookMs`: the
   * fetch just answered, for an owner asking before that fetch has handed its time back.
   */
  paceMs(item: T, tookMs = this.items.get(item)?.tookMs ?? 0): number {
    return Math.max(Math.max(1, this.options.every?.() ?? 1) * this.options.intervalMs, 2 * tookMs);
  }

  /**
   * How far apart an item's fetches are at least: `every` intervals (less the slack of one tick), or
   * twice its last fetch time when that is longer.
   */
  private spacingOf(pace: ItemPace, every: number): number {
    return Math.max((every - ROUND_SLACK) * this.options.intervalMs, 2 * pace.tookMs);
  }

  private paceOf(item: T): ItemPace {
    let pace = this.items.get(item);
    if (!pace) this.items.set(item, (pace = { startedAt: null, tookMs: 0, busy: false }));
    return pace;
  }

  private async run(item: T, pace: ItemPace, now: number): Promise<void> {
    pace.busy = true;
    pace.startedAt = now;
    this.underWay++;
    try {
      pace.tookMs = await this.options.fetch(item);
    } finally {
      pace.busy = false;
      this.underWay--;
    }
    this.pump(); // a slot is free: the next due item need not wait for a tick
  }
}
