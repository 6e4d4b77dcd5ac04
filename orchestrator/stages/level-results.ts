import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { sha256 } from '../../core/hash.js';
import { writeFileAtomic } from '../layout/atomic.js';
import type { StageLog } from '../layout/stage-log.js';
import { type EnginePool, NOT_KEPT_REASON, ResultLedger, RUNS_PER_LEVEL } from '../pool/index.js';
import type { ProgressSink } from '../progress/types.js';
import { type CachedLevel, cacheEntry, type EngineIdentityCheck, readCache } from './level-cache.js';

/**
 * What a stage that simulates levels keeps of each one, the same for `sbeval simulate` and `sbeval run`:
 * which levels are done already (a cache entry valid for the XML and the settings, with the images it
 * vouches for), a level's images and cache entry (kept only while every engine that gave them is
 * trusted: orchestrator/pool/result-ledger.ts), its line in the official stability log, and the passes
 * that run again the levels whose engine the pool discredited meanwhile.
 */

/** A level's files: its XML, trial 1's image (and the raw one beside it), its cache entry (level-cache.ts). */
export interface LevelFiles {
  xml: string;
  png: string;
  raw: string;
  cache: string;
}

/** A level as the ledger and the stability log name it: its id, and `<team>`, `<C>`, the XML's file name. */
export interface LoggedLevel {
  id: string;
  team: string;
  character: string;
  file: string;
}

/** The raw image beside trial 1's `<name>.png`: `<name>_raw.png` (`--raw-images`). */
export function rawImageOf(png: string): string {
  return png.replace(/\.png$/, '_raw.png');
}

/**
 * A level's cached result when it is still valid: its XML is there and unchanged, the settings digest
 * is the same, a level that ran has its image (and its raw image, when the stage writes them), and,
 * for an engine known only by its hello, the entry was made by that engine (`EngineIdentityCheck`).
 */
export function validCache(files: LevelFiles, digest: string, rawImages = false, engine?: EngineIdentityCheck): CachedLevel | undefined {
  if (!existsSync(files.xml)) return undefined;
  const entry = readCache(files.cache);
  if (!entry || entry.settings !== digest) return undefined;
  if (entry.xmlSha256 !== sha256(readFileSync(files.xml, 'utf8'))) return undefined;
  if (entry.outcome.ok && !(existsSync(files.png) && (!rawImages || existsSync(files.raw)))) return undefined;
  return engine && !engine.accepts(entry) ? undefined : entry;
}

/** The warning when levels ran on an engine the pool later retired for a lie: they run again, or (after the last run) are not kept. */
function rerunMessage(ids: readonly string[], run: number): string {
  return run < RUNS_PER_LEVEL
    ? `${ids.length} level(s) ran on an engine later retired for a lie: their results are not kept, they run again: ${ids.join(', ')}`
    : `${ids.length} level(s) ran ${run} times on engines later retired for a lie; not kept, the next run does them: ${ids.join(', ')}`;
}

/** How a stage hears about the levels a discredited engine worked on, after each pass. */
interface RerunHooks<L> {
  /** They run again (their files are gone, their log lines taken back). */
  again(levels: readonly L[], message: string): void;
  /** They ran `RUNS_PER_LEVEL` times: unfinished, logged as not kept. */
  notKept(levels: readonly L[], message: string): void;
  /** Start no further pass (a storage fault). */
  stopped?(): boolean;
}

/** One stage's simulated levels: their ledger, their stability log lines and progress, their images and cache entries. */
export class LevelResults {
  readonly ledger: ResultLedger;

  constructor(
    pool: EnginePool | undefined,
    private readonly log: StageLog,
    private readonly progress: ProgressSink,
    private readonly digest: string,
  ) {
    this.ledger = new ResultLedger(pool);
  }

  /** Trial 1's image (and its raw image): written, and reported to the ledger. */
  async keepImages(level: LoggedLevel, files: LevelFiles, png: Uint8Array, raw?: Uint8Array): Promise<void> {
    await writeFileAtomic(files.png, png);
    if (raw) await writeFileAtomic(files.raw, raw);
    this.ledger.wrote(level.id, files.png, ...(raw ? [files.raw] : []));
  }

  /**
   * The level's cache entry, unless an engine of it was discredited meanwhile (then it runs again).
   * A result is not fsynced: the image it vouches for already is (written and synced before this file
   * exists), and after a machine crash a torn or empty cache does not parse (readCache), so the level
   * simply runs again. Saves one disk flush per level. Returns the entry written.
   */
  async keepResult(level: LoggedLevel, files: LevelFiles, xml: string, outcome: CachedLevel['outcome']): Promise<CachedLevel | undefined> {
    if (!this.ledger.trusted(level.id)) return undefined;
    const entry = cacheEntry(sha256(xml), this.digest, this.ledger.identities(level.id), outcome);
    await writeFileAtomic(files.cache, `${JSON.stringify(entry)}\n`, { durable: !outcome.ok });
    this.ledger.wrote(level.id, files.cache);
    return entry;
  }

  /**
   * A level the engine cannot load (sbeval's own rules said so): no image (an earlier one of a
   * since-edited XML would be stale), and the verdict is cached too, since the same XML fails the same way.
   */
  async keepLevelError(level: LoggedLevel, files: LevelFiles, xml: string, reason: string): Promise<CachedLevel | undefined> {
    await rm(files.png, { force: true });
    await rm(files.raw, { force: true });
    return this.keepResult(level, files, xml, { ok: false, reason });
  }

  /** The level's line in the stability log (its verdict of this run) and its progress tick. */
  verdict(level: LoggedLevel, outcome: { ok: true } | { ok: false; reason: string }): void {
    this.log.trial(level.team, level.character, level.file, outcome);
    if (outcome.ok) this.progress.tick('simulate', 'ok', level.id);
    else this.progress.tick('simulate', 'failed', level.id, outcome.reason);
  }

  /**
   * Runs `pass` over the levels, then again over those that ran on an engine the pool discredited
   * meanwhile (the ledger has removed their files; their log lines are taken back, the log keeps one
   * line per level, its final verdict), up to `RUNS_PER_LEVEL` runs: a level still tainted after that
   * is logged as not kept and left to the next run.
   */
  async runWithReruns<L>(
    todo: readonly L[],
    levelOf: (level: L) => LoggedLevel,
    pass: (levels: readonly L[]) => Promise<void>,
    hooks: RerunHooks<L>,
  ): Promise<void> {
    let levels = todo;
    for (let run = 1; levels.length > 0 && !hooks.stopped?.(); run += 1) {
      await pass(levels);
      await this.ledger.settle();
      const tainted = new Set(this.ledger.takeTainted());
      levels = todo.filter((level) => tainted.has(levelOf(level).id));
      if (levels.length === 0) break;
      const logged = levels.map(levelOf);
      this.log.forget(logged.map(({ team, character, file }) => ({ team, character, trial: file })));
      const message = rerunMessage(
        logged.map((l) => l.id),
        run,
      );
      if (run >= RUNS_PER_LEVEL) {
        for (const l of logged) this.log.trial(l.team, l.character, l.file, { ok: false, reason: NOT_KEPT_REASON });
        hooks.notKept(levels, message);
        break;
      }
      hooks.again(levels, message);
    }
  }

  close(): void {
    this.ledger.close();
  }
}
