// The bridge's figures in Prometheus' text format, through prom-client: it keeps the format's rules
// (escaping, histogram buckets, types) and adds the process figures every exporter gives (CPU, memory,
// heap, event-loop lag, handles, GC), which hand-written text did not have.
import { Registry, collectDefaultMetrics } from 'prom-client';

let processRegistry: Registry | null = null;

/**
 * The process figures, collected once per process: they describe the process, not one bridge, and
 * each collection installs its own event-loop and GC observers.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The text exposition of one bridge's registry with the process figures beside it. */
export function exposition(registry: Registry): Promise<string> {
  return Registry.merge([processMetrics(), registry]).metrics();
}
