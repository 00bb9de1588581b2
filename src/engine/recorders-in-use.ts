// Which recorders a profile's bindings use: each binding's own (`recorder:`), each action's own, and the
// default recorder for those that name none. What readiness waits for: a recorder no bound profile uses
// cannot make a key lie.
import type { Page } from '../profiles/schema.js';
import { bindingSteps } from './binding-actions.js';

export function recordersUsedBy(pages: readonly Page[], defaultRecorder: string): Set<string> {
  const names = new Set<string>();
  for (const page of pages) {
    for (const binding of Object.values(page.controls)) {
      // Every binding's picture is drawn from its recorder (one not configured shows NO RECORDER).
      const own = binding.recorder ?? defaultRecorder;
      names.add(own);
      for (const step of bindingSteps(binding)) if ('recorder' in step && step.recorder !== undefined) names.add(step.recorder);
    }
  }
  return names;
}
