// The bridge's figures in Prometheus' text format: what an integrator graphs and alerts on. Kept by
// hand (a counter and a histogram are a few lines), with label values escaped as the format asks.

type Labels = Readonly<Record<string, string>>;

const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Labels) => {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}`;
};

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds in seconds, ascending. */
    readonly buckets: readonly number[],
  ) {}

  observe(seconds: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    const { counts } = entry;
    this.buckets.forEach((bound, i) => {
      if (seconds <= bound) counts[i] = (counts[i] ?? 0) + 1;
    });
    entry.sum += seconds;
    entry.count += 1;
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, i) => lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${counts[i]}`));
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

/** A value read when scraped. */
export class Gauge {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => ReadonlyArray<{ labels: Labels; value: number }>,
    private readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const { labels, value } of this.read()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

export function exposition(metrics: ReadonlyArray<{ text(): string }>): string {
  return `${metrics.map((m) => m.text()).join('\n')}\n`;
}
