import { defineConfig } from 'vitest/config';
import { TEST_MS } from './test/support/until.js';

// Three projects, so that a change can be checked at the speed its kind of test allows (`npx vitest run
// --project pure`), while `npm test` runs all three:
// - pure: no socket, no process, no timer of its own (decisions, rendering, schemas, devices over fakes);
// - integration: the real HTTP path against the simulator in this process, the engine on virtual time
//   (every test file not named in the other two lists, so a new file lands here by default);
// - e2e: real processes (the built CLI), Mosquitto and chromium, waited on with bounded polls.
const PURE = [
  'test/api/clock.test.ts',
  'test/api/loaded-once.test.ts',
  'test/api/repeated-answers.test.ts',
  'test/api/wire.test.ts',
  'test/architecture/*.test.ts',
  'test/bus/admission.test.ts',
  'test/bus/alarm-ack.test.ts',
  'test/bus/envelope.test.ts',
  'test/bus/json-schemas.test.ts',
  'test/bus/lease.test.ts',
  'test/cli/devices.test.ts',
  'test/cli/node-flags.test.ts',
  'test/cli/profile-secrets.test.ts',
  'test/cli/setup-udev.test.ts',
  'test/cli/teardown.test.ts',
  'test/engine/action-table.test.ts',
  'test/engine/parts-needed.test.ts',
  'test/engine/alarm-decision.test.ts',
  'test/engine/alarm-key.test.ts',
  'test/engine/alarm-memory.test.ts',
  'test/engine/followed-alarms.test.ts',
  'test/engine/device-output.test.ts',
  'test/engine/latest-wins.test.ts',
  'test/engine/work-scheduler.test.ts',
  'test/engine/cpu-budget.test.ts',
  'test/engine/duration-clock.test.ts',
  'test/engine/fetch-pacer.test.ts',
  'test/engine/recorder-state.test.ts',
  'test/engine/gain-truth.test.ts',
  'test/engine/profile-match.test.ts',
  'test/engine/picture-meaning.test.ts',
  'test/engine/same-picture.test.ts',
  'test/engine/session-transition.test.ts',
  'test/engine/show.test.ts',
  'test/plugin/global-settings.test.ts',
  'test/plugin/log-redaction.test.ts',
  'test/plugin/plugin-json-schemas.test.ts',
  'test/profiles/*.test.ts',
  'test/remote/browser-pipe.test.ts',
  'test/remote/client-address.test.ts',
  'test/remote/image-frames.test.ts',
  'test/remote/deck-fold.test.ts',
  'test/remote/login-throttle.test.ts',
  'test/render/*.test.ts',
  'test/simulator/host.test.ts',
  'test/simulator/preview.test.ts',
  'test/surfaces/midi/decode-encode.test.ts',
  'test/surfaces/midi/led-controls.test.ts',
  'test/surfaces/midi/map-json-schema.test.ts',
  'test/surfaces/midi/midi-manager.test.ts',
  'test/surfaces/midi/midi-map.test.ts',
  'test/surfaces/midi/midi-surface.test.ts',
  'test/surfaces/midi/shipped.test.ts',
  'test/surfaces/midi/soft-takeover.test.ts',
  'test/surfaces/satellite/protocol.test.ts',
  'test/surfaces/satellite/shapes.test.ts',
  'test/surfaces/streamdeck/backend-node.test.ts',
  'test/surfaces/streamdeck/controls.test.ts',
  'test/surfaces/streamdeck/describe.test.ts',
  'test/surfaces/streamdeck/hotplug.test.ts',
  'test/surfaces/streamdeck/images.test.ts',
  'test/surfaces/streamdeck/input.test.ts',
  'test/surfaces/streamdeck/manager.test.ts',
  'test/surfaces/streamdeck/shipped-profiles.test.ts',
  'test/surfaces/streamdeck/udev.test.ts',
  'test/surfaces/streamdeck/writes.test.ts',
];

/** The e2e project's files, each saying in its first comment why it must be e2e (test/architecture/test-rules.test.ts). */
export const E2E = [
  'test/plugin/facility-plugin.test.ts',
  'test/plugin/inspector-browser.test.ts',
  'test/plugin/streamdeck-plugin.test.ts',
  'test/plugin/hold-fake-app.test.ts',
  'test/plugin/facility-recorders.test.ts',
  'test/bus/deadlines.test.ts',
  'test/bus/deployed-broker.test.ts',
  'test/bus/exactly-once.test.ts',
  'test/bus/facility.test.ts',
  'test/bus/forgery.test.ts',
  'test/bus/healthz.test.ts',
  'test/bus/hung-poller.test.ts',
  'test/bus/insiders.test.ts',
  'test/bus/lease-failover.test.ts',
  'test/bus/limits.test.ts',
  'test/bus/recorder-group.test.ts',
  'test/bus/run-mqtt.test.ts',
  'test/bus/takeover.test.ts',
  'test/bus/tls.test.ts',
  'test/bus/alarms-bus.test.ts',
  'test/cli/call.test.ts',
  'test/cli/explains-itself.test.ts',
  'test/cli/npm-start.test.ts',
  'test/cli/package.test.ts',
  'test/cli/run.test.ts',
  'test/cli/simulate.test.ts',
  'test/cli/watch.test.ts',
  'test/remote/alarm-banner.test.ts',
  'test/remote/browser.test.ts',
  'test/remote/deck-view.test.ts',
  'test/remote/editor-browser.test.ts',
  'test/remote/framing.test.ts',
  'test/remote/prometheus-alerts.test.ts',
  'test/remote/readable-deck.test.ts',
  'test/remote/status-panels.test.ts',
  'test/remote/touch.test.ts',
  'test/surfaces/midi/alsa-silence.test.ts',
  'test/surfaces/satellite/run-satellite.test.ts',
];

export default defineConfig({
  test: {
    // Tests start real HTTP servers on loopback. Engine timing runs on virtual time, so two files side
    // by side do not race each other's clocks.
    // pure and integration files share a worker's loaded modules (`isolate: false`): loading the modules
    // again for every file was two thirds of their time (pure 34 s -> 13 s, integration 85 s -> 31 s).
    // That is safe because no test replaces a module (no vi.mock: the one file that counted fs watchers
    // that way now passes its own watch function) and every file closes what it starts. The e2e files
    // too (e2e alone, calm machine: 165 s -> 112 s wall, 232 s -> 135 s CPU; 139/139 green both ways);
    // a third worker for them was slower (133 s): their processes and chromium use the cores.
    // How vitest 4.1 schedules the three (node_modules/vitest/dist/chunks/cli-api*.js: groupSpecs, Pool;
    // coverage*.js: BaseSequencer.sort): their different isolate/globalSetup/testTimeout do NOT split the
    // pool into sequential groups. All three have groupOrder 0 and the same maxWorkers, so they form one
    // group whose files share one queue and both workers. They look sequential because the sequencer
    // sorts files by project name first (e2e, integration, pure), longest first within each; a worker
    // leaving one project's files for the next is restarted (a runner is reused only for its own
    // project), so letting files of all projects interleave would cost a fresh worker and module load at
    // each switch instead of the two there are now. Only `isolate: true` with maxWorkers 1, or a
    // different groupOrder or maxWorkers per project, would make groups that run one after another.
    // Three workers: most of the suite's time is now waiting (processes, Mosquitto, chromium, real
    // timers), not CPU (user CPU 282 s over a 219 s wall with two). The whole suite on a calm machine
    // (load 1.7-4), `npm test` then `npx vitest run --maxWorkers=3`, 2026-11-28 06:14-06:23: Duration
    // 205 s with two, 170 s with three, 1490/1490 green both; with three at load 10-13 (other benches
    // running) 319 s, green.
    // Transformed modules kept on disk between runs (vitest 4.1's experimental fsModuleCache, keyed by each
    // file's content and the config): a second `npm test` does not transform the TypeScript again. The pure
    // project, A/B at load 14-23 (2026-11-28 21:23): transform 26-33 s -> 5.8 s, user CPU 25.8-30.9 -> 22.9 s
    // (cold cache 27.8 s). In the repository (not node_modules/, which worktrees share by a link), ignored by git;
    // a clean clone starts cold. It is hit: a second whole-suite run wrote no new entry (594 kept). What cold
    // costs, pure + integration, cache removed then kept, A B A B at load 2.6-5 (2026-11-29 03:33-03:37,
    // `python3 scripts/cpu-by-process.py OUT -- npx vitest run --project pure --project integration`): vitest's
    // own process 10.7/10.8 s -> 5.0/4.8 s of CPU, its transform 15.0/14.5 s -> 4.8/4.0 s; the workers' CPU
    // (79, 80 vs 81, 68 s) is within run-to-run noise. So a clean clone (CI) pays ~6 s of CPU there and ~8 s
    // over the whole suite (vitest's process 16.3 -> 8.5 s): little beside the suite's ~230 s.
    experimental: { fsModuleCache: true, fsModuleCachePath: '.vitest-cache' },
    // A CPU profile per test file when SUITE_CPU_PROFILE names a folder (test/support/cpu-profile.ts).
    setupFiles: process.env.SUITE_CPU_PROFILE ? ['test/support/cpu-profile.ts'] : [],
    // The workers run without V8's optimising compiler (Ignition and Sparkplug only). A third of their CPU
    // was off the main thread, and that was TurboFan compiling on V8's threads, not the collector
    // (`--single-threaded-gc` moved nothing) nor sharp (its own threads 5 s): test code runs each path a
    // few times, so the compiling rarely paid off. pure + integration, A B A B at load 7-11 (2026-11-29
    // 06:27-06:37): the workers' CPU 75.0 / 84.5 s -> 69.8 / 72.2 s (V8's threads 24-26 -> 7-8 s, the main
    // threads +5-11 s); the whole suite green with it twice (1656). Only the workers: the `recdeck run`
    // processes the e2e files spawn keep node's defaults (docs/performance.md, "The workers' CPU by function").
    execArgv: ['--max-opt=1'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 15_000,
    projects: [
      { extends: true, test: { name: 'pure', include: PURE, isolate: false } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...PURE, ...E2E], isolate: false } },
      // One chromium for the run, which the browser test files connect to (test/support/chromium-server.mjs).
      // Their steps wait on processes, Mosquitto and chromium, which a loaded machine slows by seconds: each
      // test's bound is several of until()'s long waits (a test that works ends as soon as it is done).
      { extends: true, test: { name: 'e2e', include: E2E, globalSetup: ['test/support/chromium-server.mjs'], isolate: false, testTimeout: TEST_MS, hookTimeout: TEST_MS } },
    ],
  },
});
