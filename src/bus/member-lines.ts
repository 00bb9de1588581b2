// A line per member and kind of command at the poller: a member's reads run one after another, and
// likewise its writes, each in the order the poller admitted them; different members' lines, and a
// member's reads and writes, run side by side.
//
// Why: the recorder client has a few connections for reads and two for writes (src/api/client.ts), taken
// first come, first served. Without lines, one panel's burst of reads (up to its rate's burst, 100)
// filled all four read connections and the queue behind them, and another panel's one read waited
// behind the whole burst; beside a second suite that wait passed the client's 2 s limit (the limits
// test's panel-b). With lines, a member has at most one command of each kind at the client at a time,
// so another member's waits behind at most one of its. It also keeps a panel's own writes in the order
// it sent them (two presses never reach the recorder swapped over the two write connections), and a
// panel's press never waits behind its own reads.
//
// A command waiting in its line has not been checked yet: the lease and its deadline are checked when
// its turn comes (bus-poller.ts run), so one that waited past its deadline is refused, never sent late.
// The lines are bounded by what is admitted: the member's rate and the poller's commands in flight.

export type CommandKind = 'reads' | 'writes';

export class MemberLines {
  /** Each line's last command, settled or not (a line with none waiting is removed). */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once the member's commands of this kind admitted before it have finished. */
  inTurn<T>(member: string, kind: CommandKind, work: () => Promise<T>): Promise<T> {
    const key = `${kind} ${member}`;
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(work);
    // The next in line waits for this one to end, however it ends.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Lines with a command waiting or running (for tests: none is kept once its commands end). */
  get size(): number {
    return this.tails.size;
  }
}
