// The real bridge and renderer over the simulator on virtual time, for hardware adapters' end-to-end
// tests: a device manager's surfaces are added and removed as it finds and loses them.
import { RecorderClient } from '../../src/api/client.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord } from '../../src/engine/log.js';
import type { SurfaceSource } from '../../src/engine/surface.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { recordingLogger } from '../surfaces/streamdeck/helpers.js';
import { lastSeq, startFixture, writesSince } from './simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo, untilWithIo } from './virtual-time.js';
import { realClock } from '../../src/api/clock.js';

/**
 * Starts it; `close` stops the bridge and closes the recorder client and the simulator. The recorder is
 * polled and its meters read every `pollMs` of virtual time (100 by default); a test that moves the clock
 * on by many seconds for something else (an idle bound) may poll less, since each poll is real HTTP.
 */
export async function deviceBridge(options: { pollMs?: number } = {}) {
  const pollMs = options.pollMs ?? 100;
  const time = new VirtualTime();
  const fixture = await startFixture({ clock: time, grid: 16 });
  const log = recordingLogger();
  const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: fixture.sim.token });
  const requests = new RequestCounter(client, time);
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs, slowMs: Math.max(500, pollMs), meterMs: pollMs, thumbnailMs: Math.max(500, pollMs), time });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
  bridge.start();
  return {
    time,
    fixture,
    log,
    bridge,
    requests,
    commands,
    /** Moves virtual time on until the check holds (at most `ms` of it, 3 s by default). */
    until: (check: () => boolean, what: string, ms?: number) => untilWithIo(time, quiet, check, what, ms),
    /** Moves virtual time on by `ms`, running what falls due and waiting for the I/O it starts. */
    advance: (ms: number) => advanceWithIo(time, ms, quiet),
    /** A mark in the simulator's request log, and the writes (method, path and body) it received after one. */
    mark: () => lastSeq(fixture.sim),
    writesSince: (mark: number) => writesSince(fixture.sim, mark),
    /** Binds the source's surfaces to the bridge as they come and go. */
    follow: (source: Pick<SurfaceSource, 'surfaces$'>) => source.surfaces$.subscribe((event) => (event.type === 'added' ? bridge.addSurface(event.surface) : bridge.removeSurface(event.id))),
    close: async () => {
      await bridge.stop();
      await client.close();
      await fixture.close();
    },
  };
}
