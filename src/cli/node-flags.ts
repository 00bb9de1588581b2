// Node flags the bridge runs with (the bin's shebang and `npm start` carry them; the benchmark's
// steady-load runs use them too, so it measures what users run; a test keeps the three in step).
// The bridge runs for days on small machines: V8's young generation otherwise grows to 16 MB
// semi-spaces, which a process allocating a few MB a second never needs; 2 MB keeps resident memory
// about 25 MB lower at the same CPU (npm run bench, section d).
// Its old generation is about 38 MB of mostly static code and module sources, and V8 lets so small a
// heap grow only a little past what the last full collection left, so the steady promotion of a page's
// drawing (0.6 MB/s) brought a full mark of the whole heap every 3.5 s, on the main thread and its
// helpers. Letting it grow by 100 % between full collections made them 2.5 times rarer (9 against 23
// in 90 s with a page open), for 1.3 % of a core less at the same resident memory (npm run bench,
// section f). --heap-growing-percent is V8's; it is there in the V8 of Node 20, 22 and 24.
// Not --single-threaded-gc, though it shortens the collector's pauses: V8 scavenges in parallel and marks
// concurrently on helper threads, and on 2 busy cores or under a CPU quota the main thread waits for the
// starved helpers; without them, side by side at load 25-56, scavenge pause p50 9-11 -> 1.0-1.6 ms and
// their time in all halved, at the same process CPU. But the main thread then also does the marking of
// start-up, and a bridge came live 5-10 s later at load 18-28 (keys showing the recorder 30 against 25 s,
// 78 against 68 s after the start), enough that bench (i)'s quick warm-up failed in 4 of 5 runs with it
// against 1 of 5 without (docs/performance.md, "The collector's pauses").
export const BRIDGE_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=100'] as const;

// `recdeck call` sends one request and exits. Its one answer makes undici's HTTP parser (WebAssembly)
// hot enough that V8 compiles it again with its optimising compiler on another thread: a quarter second
// of CPU for code the process exits before using (11 runs each, alternately, at load 3 to 4: 0.85 s
// against 0.55 s wall, 0.91 against 0.61 s CPU). The baseline (Liftoff) code parses one answer as well.
// Set at run time (v8.setFlagsFromString), which holds for WebAssembly compiled after it: the parser is
// compiled at the first request. Only `call` gets it; the bridge parses answers for days.
export const CALL_V8_FLAGS = ['--liftoff-only'] as const;
