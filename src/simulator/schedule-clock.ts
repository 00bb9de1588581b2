// When a schedule time "hh:mm" (local time, as on the recorder's machine) falls between two ticks.

/** True when local time hh:mm:00 lies in (previousMs, nowMs], today or yesterday (a tick over midnight). */
export function timeCrossed(hhmm: string, previousMs: number, nowMs: number): boolean {
  const [hours, minutes] = hhmm.split(':').map(Number) as [number, number];
  const today = new Date(nowMs);
  today.setHours(hours, minutes, 0, 0);
  const yesterday = new Date(today);
  yesterday.setDate(yesterday.getDate() - 1);
  return [today.getTime(), yesterday.getTime()].some((at) => at > previousMs && at <= nowMs);
}
