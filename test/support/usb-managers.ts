// A USB device manager (Stream Decks, X-keys) under test: on virtual time with a long fallback scan (the
// tests scan when they choose to), no hot-plug events unless a test gives some, its events summarised,
// and stopped after each test.
import type { Observable } from 'rxjs';
import { afterEach } from 'vitest';
import type { UsbDeviceManagerOptions } from '../../src/surfaces/usb-device-manager.js';
import { recordingLogger, type RecordingLogger } from '../surfaces/streamdeck/helpers.js';
import { VirtualTime, advanceWithIo } from './virtual-time.js';

export type ManagerTiming = Partial<Pick<UsbDeviceManagerOptions, 'watchHotplug' | 'scanIntervalMs'>>;

type ManagerEvent<S> = { type: 'added'; surface: S } | { type: 'removed'; id: string };

interface Managed<S> {
  readonly surfaces$: Observable<ManagerEvent<S>>;
  stop(): Promise<void>;
}

/**
 * Call at the top of a test file. `managed(make, timing)` builds a manager with `make(options)` (a
 * recording log, virtual time), and it is stopped after the test.
 */
export function managerHarness() {
  const managers: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });
  return <S extends { id: string }, M extends Managed<S>>(make: (options: UsbDeviceManagerOptions & { log: RecordingLogger }) => M, timing: ManagerTiming = {}) => {
    const log = recordingLogger();
    const time = new VirtualTime();
    const manager = make({ log, scanIntervalMs: 60_000, watchHotplug: null, time, ...timing });
    managers.push(manager);
    const events: Array<ManagerEvent<S>> = [];
    manager.surfaces$.subscribe((event) => events.push(event));
    const summary = () => events.map((e) => (e.type === 'added' ? `added ${e.surface.id}` : `removed ${e.id}`));
    const advance = (ms: number) => advanceWithIo(time, ms, () => true);
    return { manager, log, events, summary, advance };
  };
}
