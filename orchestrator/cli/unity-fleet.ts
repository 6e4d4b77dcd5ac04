import { resolve } from 'node:path';
import { EngineFleet } from '../../bridge/remote-fleet.js';
import { unityLauncher } from '../../bridge/remote-launchers.js';

/** The options `sbeval unity launch` and `sbeval unity calibrate` share to start their editors. */
interface UnityFleetFlags {
  unity: string;
  project: string;
  instances: number;
  connectTimeout: number;
  maxRestarts: number;
  logDir?: string;
}

/** Starts `--instances` Unity editors in batch mode that dial a fresh endpoint (one log each). */
export function startUnityFleet(flags: UnityFleetFlags, log: (line: string) => void): Promise<EngineFleet> {
  return EngineFleet.start({
    launcher: unityLauncher({ editor: resolve(flags.unity), project: resolve(flags.project), connectTimeoutMs: flags.connectTimeout * 1000 }),
    count: flags.instances,
    maxRestarts: flags.maxRestarts,
    log,
    ...(flags.logDir ? { logDir: resolve(flags.logDir) } : {}),
  });
}
