// Where one recorder's state comes from and where its commands go. The engine needs only this: a
// poller that reads the recorder over HTTP (here), or a recorder whose state and commands travel over
// a message bus (src/bus/), which the engine never sees.
import type { Observable } from 'rxjs';
import type { RecorderClient, RequestRecord } from '../api/client.js';
import { sendCall, type ClientCall } from './command-plan.js';
import { RecorderPoller, type PollerOptions } from './recorder-poller.js';
import type { RecorderState, StatePart } from './recorder-state.js';

/** What a call's client method gives back. */
export type CallResult<C extends ClientCall> = Awaited<ReturnType<RecorderClient[C['method']]>>;

export interface RecorderLink {
  readonly name: string;
  /** Where the recorder is reached, for logs and pages (a URL or a bus topic; never a secret). */
  readonly address: string;
  readonly state$: Observable<RecorderState>;
  readonly state: RecorderState;
  start(): void;
  stop(): void;
  /** Read the state polls again now (after a command), and the slow group too if asked. */
  refresh(slow?: boolean): void;
  /** The number the next read of a part will have: a state whose read number is at least this was read after now. */
  nextReadNumber(part: StatePart): number;
  /**
   * What `owner` (a surface, the alarm engine, the web server) needs read of the recorder from now on,
   * replacing what it said before (null: nothing). Offered by a link that reads on demand; a link whose
   * state is read for others too (a facility's bus, whose poller reads every part for panels this
   * process cannot see) has none, and its state keeps every part.
   */
  want?(owner: string, parts: ReadonlySet<StatePart> | null): void;
  /**
   * Reads sync and dialog `every()` poll intervals apart (asked at each of their answers; 1 ..
   * SLOWEST_POLL_EVERY), channels at the interval: the bridge's pace while it is short of time. Offered
   * by a link that polls here; a bus's state is read at its poller's own pace for every panel.
   */
  paceStatePolls?(every: () => number): void;
  /**
   * Makes one call on the recorder, exactly once, and gives back its answer (or rejects with why not;
   * an error with `notRun: true` means the request did not reach the recorder and never will).
   */
  call<C extends ClientCall>(call: C): Promise<CallResult<C>>;
  /** Calls `observer` after every request this link itself makes to the recorder; returns the function that stops it. */
  observe(observer: (record: RequestRecord) => void): () => void;
}

/** The link of a poller that holds the recorder's client: reads and calls go straight to the recorder. */
export function pollingLink(poller: RecorderPoller): RecorderLink {
  return {
    name: poller.name,
    address: poller.client.url,
    get state$() {
      return poller.state$;
    },
    get state() {
      return poller.state;
    },
    start: () => poller.start(),
    stop: () => poller.stop(),
    refresh: (slow) => poller.refresh(slow),
    nextReadNumber: (part) => poller.nextReadNumber(part),
    want: (owner, parts) => poller.want(owner, parts),
    paceStatePolls: (every) => poller.paceBy(every),
    call: <C extends ClientCall>(call: C) => sendCall(poller.client, call) as Promise<CallResult<C>>,
    observe: (observer) => poller.client.observe(observer),
  };
}

/**
 * A recorder polled here on demand: only the parts its owners want (the surfaces in view say theirs
 * through SurfaceDemand), and always what each `standing` owner reads at any moment (the web server, the
 * alarm engine). With none wanted, the recorder is not asked anything.
 */
export function onDemandLink(name: string, client: RecorderClient, options: Omit<PollerOptions, 'reads'> & { standing?: ReadonlyMap<string, Iterable<StatePart>> }): RecorderLink {
  const { standing, ...pollerOptions } = options;
  const poller = new RecorderPoller(name, client, { ...pollerOptions, reads: 'on-demand' });
  for (const [owner, parts] of standing ?? []) poller.want(owner, parts);
  return pollingLink(poller);
}
