// A recorder link whose state the test writes (set), for sessions driven without a poller: nothing is
// read or polled; each test's subclass says how state reads cost and how calls are answered.
import { Subject } from 'rxjs';
import type { ClientCall } from '../../src/engine/command-plan.js';
import type { CallResult, RecorderLink } from '../../src/engine/recorder-link.js';
import type { RecorderState } from '../../src/engine/recorder-state.js';

export abstract class WrittenStateLink implements RecorderLink {
  readonly name = 'main';
  readonly address = 'memory';
  private readonly states = new Subject<RecorderState>();
  readonly state$ = this.states.asObservable();

  constructor(protected current: RecorderState) {}

  get state(): RecorderState {
    return this.current;
  }

  /** The recorder's state is now `state`, and the link says so. */
  set(state: RecorderState): void {
    this.current = state;
    this.states.next(state);
  }

  start(): void {}
  stop(): void {}
  refresh(): void {}
  nextReadNumber(): number {
    return Number.MAX_SAFE_INTEGER;
  }
  observe(): () => void {
    return () => undefined;
  }
  abstract call<C extends ClientCall>(call: C): Promise<CallResult<C>>;
}
