import type { CallLine } from './run-log.js';

/**
 * Tokens per second per model, from the `prompt_eval_count`/`eval_count` of successful calls, over
 * wall time since the model's first call. The shared progress displays (orchestrator/progress) show
 * trials, rate and ETA; this adds the LLM throughput as a periodic note per model and in the summary.
 */
interface ModelTokens {
  prompt: number;
  completion: number;
  calls: number;
  firstAt: number;
  lastAt: number;
  reportedCalls: number;
}

export class TokenMeter {
  private readonly models = new Map<string, ModelTokens>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly report: (model: string, message: string) => void,
    intervalMs = 30_000,
    private readonly clock: () => number = Date.now,
  ) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.tick(), intervalMs);
      this.timer.unref();
    }
  }

  call(line: CallLine): void {
    if (!line.ok) return;
    const now = this.clock();
    let m = this.models.get(line.model);
    if (!m) this.models.set(line.model, (m = { prompt: 0, completion: 0, calls: 0, firstAt: now - line.durationMs, lastAt: now, reportedCalls: 0 }));
    m.prompt += line.promptTokens ?? 0;
    m.completion += line.completionTokens ?? 0;
    m.calls += 1;
    m.lastAt = now;
  }

  line(model: string): string | undefined {
    const m = this.models.get(model);
    if (!m) return undefined;
    const seconds = Math.max(0.001, (m.lastAt - m.firstAt) / 1000);
    return `${m.calls} calls, ${(m.completion / seconds).toFixed(1)} completion tok/s, ${(m.prompt / seconds).toFixed(1)} prompt tok/s`;
  }

  private tick(): void {
    for (const [model, m] of this.models) {
      if (m.calls === m.reportedCalls) continue;
      m.reportedCalls = m.calls;
      this.report(model, this.line(model)!);
    }
  }

  summary(): string[] {
    return [...this.models.keys()].map((model) => `${model} throughput: ${this.line(model)}`);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
