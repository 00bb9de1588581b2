// The plugin's entry point, run by the Stream Deck app with its own Node (`-port -pluginUUID
// -registerEvent -info`, read by Elgato's SDK). Here the real clock is chosen; the wiring is
// start-plugin.ts's (which tests start in their own process on virtual time).
import { realTime } from '../engine/engine-time.js';
import { startPlugin } from './start-plugin.js';

await startPlugin({ time: realTime });
