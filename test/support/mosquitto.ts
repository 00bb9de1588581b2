// The tests start the same real broker as the benchmarks.
export { mosquittoBinary, startBroker, type Broker } from '../../src/bench/broker.js';
