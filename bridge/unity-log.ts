/**
 * What a Unity editor started for sbeval says in its log (-logFile) about how far it got, as the
 * plugin writes it: `[sbeval] stage: <name>` for each stage it passes (Runtime/Unity/SbevalStage.cs),
 * `[sbeval] graphics device: <type>` (SystemInfo.graphicsDeviceType, SbevalEngineHost.cs),
 * `[sbeval] timing <level>: first read step <n>, <steps> physics steps in <frames> frames` after each
 * stability pass (LevelRun.cs), and the socket's fallback when ClientWebSocket.Abort() throws
 * (WebSocketTransport.cs). Only the part after the launcher's last `=== sbeval: start` header counts:
 * the log of one instance holds every start of it (bridge/remote-fleet.ts).
 */

/** The stages in the order an editor passes them; the first is the launcher's: the editor wrote its log. */
export const UNITY_STAGES = ['editor started', 'script compiled', 'entry method ran', 'play mode entered', 'bridge connected'] as const;
export type UnityStage = (typeof UNITY_STAGES)[number];

/** The log of the latest start: what follows the launcher's last header line. */
function latestStart(log: string): string {
  const at = log.lastIndexOf('=== sbeval: start ');
  if (at < 0) return log;
  const end = log.indexOf('\n', at);
  return end < 0 ? '' : log.slice(end + 1);
}

/** The last stage the latest start reached (undefined: the editor wrote nothing). */
export function stageReached(log: string): UnityStage | undefined {
  const text = latestStart(log);
  if (text.trim() === '') return undefined;
  let reached: UnityStage = 'editor started';
  for (const match of text.matchAll(/\[sbeval\] stage: ([a-z ]+)/g)) {
    const stage = UNITY_STAGES.find((s) => s === match[1]);
    if (stage && UNITY_STAGES.indexOf(stage) > UNITY_STAGES.indexOf(reached)) reached = stage;
  }
  return reached;
}

/** The stage after `stage` (the one the editor did not reach), if any. */
export function nextStage(stage: UnityStage | undefined): UnityStage | undefined {
  return UNITY_STAGES[stage === undefined ? 0 : UNITY_STAGES.indexOf(stage) + 1];
}

export interface StabilityTiming {
  level: string;
  /** The physics step the first frame that stepped the level ended on: what the evaluator's first end-of-frame read sees. */
  firstReadStep: number;
  steps: number;
  frames: number;
}

/** The timing line of each stability pass of the latest start, in log order. */
export function stabilityTimings(log: string): StabilityTiming[] {
  const out: StabilityTiming[] = [];
  for (const m of latestStart(log).matchAll(/\[sbeval\] timing (.+): first read step (-?\d+), (\d+) physics steps in (\d+) frames/g)) {
    out.push({ level: m[1] as string, firstReadStep: Number(m[2]), steps: Number(m[3]), frames: Number(m[4]) });
  }
  return out;
}

/** SystemInfo.graphicsDeviceType as the engine host logged it. */
export function graphicsDevice(log: string): string | undefined {
  return /\[sbeval\] graphics device: (\S+)/.exec(latestStart(log))?.[1];
}

/** The plugin's note that ClientWebSocket.Abort() threw and the socket was closed with Dispose() instead. */
export function abortFallback(log: string): string | undefined {
  return /\[sbeval\] (ClientWebSocket\.Abort\(\) threw [^\n]*)/.exec(latestStart(log))?.[1];
}
