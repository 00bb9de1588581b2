// Faults the simulator can be told to inject, decided by its seeded PRNG so a run replays exactly.
import * as z from 'zod';
import type { Random } from './random.js';

export const FaultRule = z.strictObject({
  /**
   * latency: answer late; status: answer `status` with an error body and do nothing; malformed: carry
   * the request out, then answer a body that is not JSON; reset: drop the connection without doing
   * anything; hang: never answer (until the simulator closes); ignore: answer a write with success and
   * do nothing (a recorder that says yes and does not do it).
   */
  kind: z.enum(['latency', 'status', 'malformed', 'reset', 'hang', 'ignore']),
  method: z.enum(['GET', 'PUT', 'POST', 'DELETE']).optional(),
  /** Applies to request paths that start with this (e.g. "/api/channels"). */
  path: z.string().startsWith('/').optional(),
  probability: z.number().min(0).max(1).default(1),
  /** How many requests it applies to before it is spent; unlimited when absent. */
  count: z.number().int().positive().optional(),
  latencyMs: z.number().int().min(0).max(60_000).default(0),
  status: z.number().int().min(400).max(599).default(500),
});
export type FaultRule = z.output<typeof FaultRule>;
export const FaultRules = z.strictObject({ rules: z.array(FaultRule) });

export interface FaultPlan {
  delayMs: number;
  /** At most one fault that changes the answer; the first matching rule wins. */
  outcome: Exclude<FaultRule['kind'], 'latency'> | null;
  status: number;
}

export class FaultInjector {
  private rules: FaultRule[] = [];
  constructor(private readonly random: Random) {}

  set(rules: readonly FaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r }));
  }

  list(): readonly FaultRule[] {
    return this.rules;
  }

  /** What happens to this request; spends the rules that fire. */
  plan(method: string, path: string): FaultPlan {
    const plan: FaultPlan = { delayMs: 0, outcome: null, status: 500 };
    for (const rule of this.rules) {
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.path !== undefined && !path.startsWith(rule.path)) continue;
      if (rule.kind !== 'latency' && plan.outcome !== null) continue;
      if (this.random() >= rule.probability) continue;
      if (rule.count !== undefined) rule.count -= 1;
      if (rule.kind === 'latency') {
        plan.delayMs += rule.latencyMs;
      } else {
        plan.outcome = rule.kind;
        plan.status = rule.status;
      }
    }
    this.rules = this.rules.filter((r) => r.count === undefined || r.count > 0);
    return plan;
  }
}
