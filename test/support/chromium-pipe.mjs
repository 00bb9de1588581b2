// Between the run's chromium and playwright's browser server (chromium-features.sh runs this in the
// browser's place): starts the browser with playwright's own end of the DevTools pipe for commands (fd 3,
// passed through untouched) and relays what the browser says (fd 4), each NUL-ended message whole and in
// order, with one change: the payload of a binary WebSocket frame a page received is cut to one byte.
//
// Why: with the Network domain on (playwright enables it on every page), chromium reports every frame a
// page's WebSocket receives, its payload base64-encoded, and playwright's server passes each one on to
// the test process that opened the page (there is no subscription to turn it off). The web deck's key
// images are binary frames: about 1 MB a second of JSON through the launcher and into the test's worker,
// for pages no test reads a payload of (the tests read the canvases, and count frames). Beside a second
// suite the worker falls behind reading it, and its own calls' answers wait in that line behind it: in
// paired run 126 (2026-11-29) a page.evaluate that chromium answered in 15 ms reached readable-deck 46 s
// later, while neither the launcher's nor the worker's event loop stalled over 1.4 s; in run 127, 100-900
// kB at a time sat unread on the workers' sockets from the launcher (ss). The frame event itself is kept
// (its time, opcode and a one-byte payload), so playwright's `framereceived` still fires once per frame.
// Plain JavaScript: it is run by node itself.
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { relay } from './cdp-frame-payloads.mjs';

const [browser, ...args] = process.argv.slice(2);
if (!browser) throw new Error('chromium-pipe.mjs: the browser to run is its first argument');

const child = spawn(browser, args, { stdio: ['inherit', 'inherit', 'inherit', 3, 'pipe'] });
const toPlaywright = new Socket({ fd: 4, readable: false, writable: true });
const fromBrowser = child.stdio[4];
if (!fromBrowser) throw new Error('chromium-pipe.mjs: no pipe from the browser on its fd 4');
fromBrowser.pipe(relay()).pipe(toPlaywright);
// Asked to stop (playwright's close on a failed launch; SIGKILL reaches the browser by its process group).
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`chromium-pipe.mjs: ${error.message}\n`);
  process.exit(1);
});
// Playwright gone (its end of the pipe closed): nothing left to tell it; the browser goes with the group.
toPlaywright.on('error', () => undefined);
// The browser's own exit status, once what it said has been passed on ('close': its pipes are drained).
child.on('close', (code, signal) => {
  const exit = () => process.exit(code ?? (signal ? 1 : 0));
  if (toPlaywright.writableFinished || toPlaywright.destroyed) exit();
  else toPlaywright.once('close', exit);
});
