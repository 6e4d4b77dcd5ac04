import { resolve } from 'node:path';
import { EngineFleet } from '../bridge/remote-fleet.js';
import { unityLauncher } from '../bridge/remote-launchers.js';
import { option } from './options.js';

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

/** The editor binary and project options: required by `unity launch`, optional (together) for `unity calibrate`. */
export const unityEditorOption = (required: boolean) =>
  option('--unity <editor>', 'the Unity 2019.4 editor binary (macOS: /Applications/Unity/Hub/Editor/2019.4.40f1/Unity.app/Contents/MacOS/Unity)', { required });
export const unityProjectOption = (required: boolean) => option('--project <path>', 'the Science Birds project with the plugin installed', { required });
