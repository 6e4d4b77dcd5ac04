import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PROTOCOL_VERSION } from '../../bridge/protocol.js';
import { INSTALL_DIR, INSTALLED, MARKER_FILE, packageVersion, pluginSource, readMarker } from '../unity-plugin-files.js';
import { type DoctorCheck, fail, pass } from './checks.js';

/**
 * The checks `sbeval unity doctor` makes on the project's files before it starts an editor: the
 * plugin, the evaluator's world scenes in the build settings, the OCR asset and the graphics API the
 * project selects for the editor. The paths are the plugin's (Runtime/Unity/LevelRun.cs StabilityScene
 * and SimilarityScene, CaptureRenderer.cs OcrSettingsPath).
 */
export const WORLD_SCENES = ['Assets/ICE/Scenes/StabilityGameWorld.unity', 'Assets/ICE/Scenes/SimilarityGameWorld.unity'];
export const OCR_ASSET = 'Assets/ICE/Settings/OCRSettings.asset';
const REINSTALL = 'sbeval unity install --force <project>, then open the project once in Unity 2019.4 so it compiles the plugin';

/** `m_EditorVersion` of ProjectSettings/ProjectVersion.txt. */
export function projectEditorVersion(project: string): string | undefined {
  const file = join(project, 'ProjectSettings', 'ProjectVersion.txt');
  if (!existsSync(file)) return undefined;
  return /^m_EditorVersion:\s*(\S+)/m.exec(readFileSync(file, 'utf8'))?.[1];
}

/** The installed plugin: its marker names this package's version and protocol, and its files are this package's. */
export function pluginCheck(project: string): DoctorCheck {
  const target = join(project, INSTALL_DIR);
  const marker = join(target, MARKER_FILE);
  if (!existsSync(marker)) return fail('plugin', `not installed (no ${relative(project, marker)})`, REINSTALL.replace(' --force', ''));
  const versions = readMarker(readFileSync(marker, 'utf8'));
  const want = { plugin: packageVersion(), protocol: PROTOCOL_VERSION };
  if (!versions || versions.plugin !== want.plugin || versions.protocol !== want.protocol) {
    const had = versions ? `${versions.plugin} (protocol ${versions.protocol})` : 'an unreadable marker';
    return fail('plugin', `installed: ${had}; this sbeval ships ${want.plugin} (protocol ${want.protocol})`, REINSTALL);
  }
  const differing = differingFiles(pluginSource(), target);
  if (differing.length > 0) {
    const shown = differing.slice(0, 3).join(', ') + (differing.length > 3 ? ` and ${differing.length - 3} more` : '');
    return fail('plugin', `version ${want.plugin}, but ${differing.length} file(s) differ from this sbeval's: ${shown}`, REINSTALL);
  }
  return pass('plugin', `${want.plugin} (protocol ${want.protocol}) in ${INSTALL_DIR}, files as shipped`);
}

/** Files of the shipped plugin that are missing from the project or differ there (paths relative to the plugin). */
function differingFiles(source: string, target: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const from = join(source, rel);
    if (statSync(from).isDirectory()) {
      for (const name of readdirSync(from).sort()) walk(join(rel, name));
      return;
    }
    const to = join(target, rel);
    if (!existsSync(to) || !readFileSync(to).equals(readFileSync(from))) out.push(rel);
  };
  for (const entry of INSTALLED) walk(entry);
  return out;
}

/** The evaluator's two world scenes, listed and enabled in ProjectSettings/EditorBuildSettings.asset (LevelRun loads them by path). */
export function scenesCheck(project: string): DoctorCheck {
  const file = join(project, 'ProjectSettings', 'EditorBuildSettings.asset');
  const fix = 'open the project in Unity, File > Build Settings, add and tick Assets/ICE/Scenes/StabilityGameWorld.unity and SimilarityGameWorld.unity';
  if (!existsSync(file)) return fail('build scenes', 'ProjectSettings/EditorBuildSettings.asset is missing', fix);
  const enabled = new Set<string>();
  for (const m of readFileSync(file, 'utf8').matchAll(/-\s+enabled:\s*(\d)\s*\n\s+path:\s*(\S+)/g)) if (m[1] === '1') enabled.add(m[2] as string);
  const missing = WORLD_SCENES.filter((s) => !enabled.has(s));
  if (missing.length > 0) return fail('build scenes', `not in the build settings (or not enabled): ${missing.join(', ')}`, fix);
  return pass('build scenes', `${WORLD_SCENES.map((s) => s.split('/').pop()).join(' and ')} enabled`);
}

export function ocrCheck(project: string): DoctorCheck {
  if (existsSync(join(project, OCR_ASSET))) return pass('OCR asset', OCR_ASSET);
  return fail(
    'OCR asset',
    `${OCR_ASSET} is missing: the engine would announce no capture`,
    'use a clone of chatgpt4pcg/modified-science-birds (the asset ships with it)',
  );
}

/**
 * The graphics API the editor runs with. ProjectSettings.asset's `metalEditorSupport` picks the macOS
 * editor's: 1 Metal, 0 OpenGLCore (Unity 2019.4); the editor's -force-metal / -force-glcore override it.
 * `reported` is SystemInfo.graphicsDeviceType as the started editor logged it.
 */
export function graphicsCheck(project: string, reported: string | undefined): DoctorCheck {
  const file = join(project, 'ProjectSettings', 'ProjectSettings.asset');
  const setting = existsSync(file) ? /^\s*metalEditorSupport:\s*(\d)/m.exec(readFileSync(file, 'utf8'))?.[1] : undefined;
  const selected =
    setting === undefined ? 'no metalEditorSupport setting found' : `metalEditorSupport: ${setting} (${setting === '1' ? 'Metal' : 'OpenGLCore'} on macOS)`;
  const force = 'to try another graphics API, start the editor with -force-metal or -force-glcore (see unity-plugin/README.md)';
  if (reported === 'Null')
    return fail('graphics API', `${selected}; the editor reports SystemInfo.graphicsDeviceType Null: no graphics device`, `do not pass -nographics; ${force}`);
  const seen = reported ? `; the editor reports SystemInfo.graphicsDeviceType ${reported}` : '';
  if (setting === undefined)
    return fail(
      'graphics API',
      `${relative(dirname(project), file)}: ${selected}${seen}`,
      'point --project at the Unity project folder (it has ProjectSettings/ProjectSettings.asset)',
    );
  return pass('graphics API', `${selected}${seen}`);
}
