import { z } from 'zod';
import { DAMAGE_FORMULAS } from '../../bridge/engine.js';
import { ENGINE_KINDS, type EngineKind } from '../../bridge/engine-kinds.js';
import { parseListen } from '../../bridge/listen.js';
import { RULE_SET_NAMES, type RuleSetName } from '../../scoring/score/rules.js';
import { checkName } from '../layout/names.js';

/**
 * `sbeval.config.(json|yaml|yml)` at the competition root: everything `sbeval run` needs that is not
 * in the folder itself. Every key is optional (a folder of responses needs no config at all); every
 * object is strict, so a misspelt key is an error that names it instead of a silently ignored setting.
 * CLI flags override the file (orchestrator/config/settings.ts).
 */
export const RULES = RULE_SET_NAMES;
export type Rules = RuleSetName;

/** The engine kinds (bridge/engine-kinds.ts). */
export const ENGINES = ENGINE_KINDS;
export type { EngineKind };

/** A folder-name-safe team name (orchestrator/layout/names.ts). */
const teamName = z.string().superRefine((name, ctx) => {
  const problem = checkName('team', name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** `A-Z`, `A,C,F-H` or a list of letters. */
const characters = z.union([z.string().min(1), z.array(z.string().regex(/^[A-Z]$/, 'a character is one capital letter A–Z')).min(1)]);

const seconds = z.number().positive();

export const submissionSchema = z.strictObject({
  /** The team folder the responses go to. */
  team: teamName,
  /** A prompt file (`<OBJECT>` replaced by the letter), a chat script (.json/.yaml) or a program; relative to the root, or `builtin:<name>`. */
  file: z.string().min(1),
  kind: z.enum(['prompt', 'chat', 'program']).optional(),
});

export const limitsSchema = z.strictObject({
  /** Generation: seconds per trial (official 500 in 2025; 0 = none). */
  timeSeconds: z.number().min(0).optional(),
  /** Generation: prompt + completion tokens per trial (official 25,000; 0 = none). */
  tokens: z.number().int().min(0).optional(),
  /** Model calls (generation, judges): the deadline of one call attempt (default: timeSeconds when set, else 600). */
  callSeconds: seconds.optional(),
  /** Model calls: the largest answer accepted, in bytes of text (default 1 MiB). */
  answerBytes: z.number().int().min(1024).optional(),
  /** Simulation: longest silence of an engine before it counts as stalled. */
  stallSeconds: seconds.optional(),
  /** Simulation: longest time for one trial of one level on one engine. */
  trialSeconds: seconds.optional(),
  /** Simulation: retries on another engine after an engine fault, per trial. */
  engineRetries: z.number().int().min(0).max(10).optional(),
  /** Simulation (`--engine bridge`): how long levels wait for an engine to dial in once every engine that was there has left. */
  engineWaitSeconds: seconds.optional(),
});

export const configSchema = z.strictObject({
  /** Scoring rules (and the function name, the similarity format: scoring/score/rules.ts); YAML may write the year as a number. */
  rules: z.union([z.enum(RULES), ...RULES.map((name) => z.literal(Number(name)))]).optional(),
  /** Teams to evaluate (default: every team folder). */
  teams: z.array(teamName).min(1).optional(),
  /** Characters to evaluate (default A–Z). */
  characters: characters.optional(),
  /** Trials per character (official 10): the diversity denominator and the scoring's T. */
  trials: z.number().int().min(1).max(1000).optional(),
  /** Function name override (`drop_block` / `ab_drop`). */
  prefix: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a function name: letters, digits, underscore')
    .optional(),
  /** Submissions to generate responses for (needs `models`). */
  submissions: z.array(submissionSchema).min(1).optional(),
  /** Ollama models; with more than one, each model gets its own competition folder `<root>/<model>/`. */
  models: z.array(z.string().min(1)).min(1).optional(),
  /** Model hosts sharing the generation work (URLs; credentials as userinfo only, never a key: keys come from the environment). */
  hosts: z.array(z.url()).min(1).optional(),
  /**
   * The API the hosts speak (Ollama's native one by default, or the OpenAI-style one). Its allowed
   * values are the model APIs of llm/model-calls/apis.ts, which the evaluator does not read: the
   * config schema of the CLI and the package (llm/config.ts) is this one with them.
   */
  api: z.string().min(1).optional(),
  /** Master seed of the generation (official 2025: 6280). */
  seed: z.number().int().optional(),
  /** Engine: in-process headless (default), headless worker processes over WebSocket, or remote engines over the bridge. */
  engine: z.enum(ENGINES).optional(),
  /** Engines to run (default: the number of cores). */
  workers: z.number().int().min(1).max(256).optional(),
  /** Similarity model (ONNX), relative to the root or absolute. */
  model: z.string().min(1).optional(),
  /** Record a trace of every simulated trial under `<root>/<team>/traces/`. */
  traces: z.boolean().optional(),
  /** Stability trials per level (evaluator: 3; stop at 1.0). */
  simulationTrials: z.number().int().min(1).max(3).optional(),
  /** Damage formula of the headless engine. */
  damage: z.enum(DAMAGE_FORMULAS).optional(),
  /** Knife-edge verdicts: re-simulate every level this many times under tiny perturbations (headless engine; orchestrator/stages/robustness.ts). */
  robustness: z.number().int().min(1).max(10_000).optional(),
  /** The ranking's uncertainty beside the official scores (scoring/uncertainty; default on when T ≥ 2). */
  uncertainty: z.union([z.enum(['on', 'off']), z.boolean()]).optional(),
  /** Bootstrap resamples (default 2000). */
  resamples: z.number().int().min(1).max(100_000).optional(),
  /** Seed of the bootstrap (default 1): the same seed gives byte-identical files. */
  uncertaintySeed: z.number().int().min(0).max(0xffffffff).optional(),
  /** Bridge endpoint for `engine: bridge`: `host:port` to listen on (default 127.0.0.1:0, the OS picks the port; `[::1]:0` for IPv6). */
  listen: z
    .string()
    .superRefine((text, ctx) => {
      try {
        parseListen(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .optional(),
  /** `engine: bridge`: a file whose first line is the token engines must present, inside the root (relative to it; `--token-file` may name any file). */
  tokenFile: z.string().min(1).optional(),
  /** Line ends of the result CSV files: the official scoring script writes the system's (`os.EOL`); the published 2024/2025 files are `crlf` (Windows). */
  eol: z.enum(['lf', 'crlf']).optional(),
  limits: limitsSchema.optional(),
});

export type ConfigFile = z.infer<typeof configSchema>;

/**
 * A schema of the whole config file: `configSchema`, or the one a floor above composes from it with
 * the allowed values the evaluator does not know (llm/config.ts). Files and flags are checked by the
 * one a command is given.
 */
export type ConfigSchema = z.ZodType<ConfigFile> & { shape: Record<keyof typeof configSchema.shape, z.core.$ZodType> };

/** The text values a config key allows (its enum members, through optional and union): the choices of its flag. */
export function keyChoices(key: keyof typeof configSchema.shape, schema: ConfigSchema = configSchema): string[] {
  const values = (node: z.core.$ZodType): string[] => {
    const def = node._zod.def as { type: string; innerType?: z.core.$ZodType; entries?: Record<string, unknown>; options?: z.core.$ZodType[] };
    if (def.type === 'optional' && def.innerType) return values(def.innerType);
    if (def.type === 'enum' && def.entries) return Object.values(def.entries).filter((v) => typeof v === 'string');
    if (def.type === 'union' && def.options) return [...new Set(def.options.flatMap(values))];
    return [];
  };
  return values(schema.shape[key]);
}

/** Where a resolved setting came from: its default, the config file, or a flag. */
export type Source = 'default' | 'config' | 'flag';
