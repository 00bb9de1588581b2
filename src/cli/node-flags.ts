// Node flags the bridge runs with (the bin's shebang and `npm start` carry them; the benchmark's
// steady-load runs use them too, so it measures what users run; a test keeps the three in step).
// The bridge runs for days on small machines: V8's young generation otherwise grows to 16 MB
// semi-spaces, which a process allocating a few MB a second never needs; 2 MB keeps resident memory
// about 25 MB lower at the same CPU (npm run bench, section d).
export const BRIDGE_NODE_FLAGS = ['--max-semi-space-size=2'] as const;
