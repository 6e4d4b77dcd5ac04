import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DAMAGE_FORMULAS } from '../../bridge/engine.js';
import { ENGINE_KINDS } from '../../bridge/engine-kinds.js';
import { DROP_FAILURES } from '../../levels/drop.js';
import { CODE_NOT_FOUND } from '../../levels/extract.js';
import { NEWLINES } from '../../llm/generate/submission.js';
import { MODEL_APIS } from '../../llm/model-calls/apis.js';
import { NEVER_GENERATED, NOT_CONVERTED, NOT_EXTRACTED, NOT_SIMULATED } from '../../orchestrator/report/fates.js';
import { OBJECT_STYLES, RULE_SET_NAMES } from '../../scoring/score/rules.js';
import { OFFICIAL_MOVEMENT_THRESHOLD } from '../../scoring/stability.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { PRODUCT_ROOTS, sourceFiles } from './source-graph.js';

/**
 * One source per rule and list (docs/architecture.md): a fact the product holds in one place cannot
 * drift from a copy. Each check reads the product code with the TypeScript parser (comments are prose,
 * not checked) and is shown to name a planted violation.
 */

/** The one file that may name a rule year: the rule sets, where each year's differences are data. */
const RULE_SETS_FILE = 'scoring/score/rules.ts';

/** A year a rule set could be named by: the competitions' and the next few. */
const RULE_YEAR = /^20(2[3-9]|3\d)$/;

interface Finding {
  path: string;
  line: number;
  text: string;
}

const parsed = new Map<string, ts.SourceFile>();

/** A file parsed once per text (every check reads every product file). */
function parse(path: string, text: string): ts.SourceFile {
  const key = `${path}\0${text}`;
  let file = parsed.get(key);
  if (!file) {
    file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
    parsed.set(key, file);
  }
  return file;
}

function visitLiterals(file: ts.SourceFile, found: (node: ts.Node, text: string) => void): void {
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isNumericLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      // Module specifiers name files (`levels/rules-2023.js`), not rules.
      if (!(ts.isStringLiteral(node) && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent)))) found(node, node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

/**
 * Rule years written as code outside the rule sets: a literal whose whole value is a year (`'2025'`,
 * `2024`, in a value or a type), or a message telling the user to pass one (`--rules 2025`).
 */
function ruleYearLiterals(path: string, text: string): Finding[] {
  if (path === RULE_SETS_FILE) return [];
  const file = parse(path, text);
  const findings: Finding[] = [];
  visitLiterals(file, (node, value) => {
    if (RULE_YEAR.test(value) || /--rules 20\d\d\b/.test(value))
      findings.push({ path, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: value });
  });
  return findings;
}

const product = (): Array<{ path: string; text: string }> =>
  sourceFiles(PROJECT_ROOT, PRODUCT_ROOTS).map((path) => ({ path, text: readFileSync(join(PROJECT_ROOT, path), 'utf8') }));
const shown = (f: Finding): string => `${f.path}:${f.line} ${JSON.stringify(f.text)}`;

describe('every year difference is data in the rule sets', () => {
  it(`no product file but ${RULE_SETS_FILE} writes a rule year as code`, () => {
    const files = product();
    expect(files.map((f) => f.path)).toContain(RULE_SETS_FILE);
    expect(ruleYearLiterals(RULE_SETS_FILE, readFileSync(join(PROJECT_ROOT, RULE_SETS_FILE), 'utf8'))).toEqual([]);
    expect(files.flatMap((f) => ruleYearLiterals(f.path, f.text)).map(shown)).toEqual([]);
  });

  it('names a planted year: a comparison, a type, a number, a hint; not a comment, an import or a date in prose', () => {
    const planted = [
      "import { qualify } from '../../levels/rules-2023.js';",
      '// the 2025 rules sum the models',
      "export const prefix = (rules: string) => (rules === '2023' ? 'ab_drop' : 'drop_block');",
      'export type Format = 2024 | 2026;',
      'export const hint = `use --rules 2025, or give one folder`;',
      "export const note = 'the published 2024 files use CRLF';",
    ].join('\n');
    expect(ruleYearLiterals('orchestrator/planted.ts', planted).map(shown)).toEqual([
      'orchestrator/planted.ts:3 "2023"',
      'orchestrator/planted.ts:4 "2024"',
      'orchestrator/planted.ts:4 "2026"',
      'orchestrator/planted.ts:5 "use --rules 2025, or give one folder"',
    ]);
  });
});

/**
 * A set of allowed values and its one home. An enumeration (short names such as `unity`, which are
 * also compared one at a time elsewhere) is copied when another file writes two or more of its members
 * together: an array (a `z.enum`, a `choices` list), a union type, or a chain of comparisons. A wording
 * (a sentence the user reads) is copied when another file's literal contains a member at all.
 */
interface ListRule {
  name: string;
  home: string;
  kind: 'enumeration' | 'wording';
  members: readonly string[];
  /** `file members` (as the finding says them) → why that group is not a copy of the list. */
  kept?: Readonly<Record<string, string>>;
}

const LISTS: readonly ListRule[] = [
  { name: 'rule sets', home: RULE_SETS_FILE, kind: 'enumeration', members: RULE_SET_NAMES },
  {
    name: 'engine kinds',
    home: 'bridge/engine-kinds.ts',
    kind: 'enumeration',
    members: ENGINE_KINDS,
    kept: {
      'orchestrator/stages/calibrate.ts unity headless': 'the two sides a calibration compares, not a choice of engine',
      'orchestrator/stages/calibrate.ts headless unity': "the two sides' trials a calibration collects, not a choice of engine",
      'cli/commands/unity-calibrate.ts unity headless': "the two sides' results a calibration prints, not a choice of engine",
    },
  },
  { name: 'damage formulas', home: 'bridge/engine.ts', kind: 'enumeration', members: DAMAGE_FORMULAS },
  { name: 'model APIs', home: 'llm/model-calls/apis.ts', kind: 'enumeration', members: MODEL_APIS },
  { name: '<OBJECT> styles', home: RULE_SETS_FILE, kind: 'enumeration', members: OBJECT_STYLES },
  { name: 'prompt line ends', home: 'llm/generate/submission.ts', kind: 'enumeration', members: NEWLINES },
  { name: "the official converter's failures", home: 'levels/drop.ts', kind: 'wording', members: DROP_FAILURES },
  { name: "the official extractor's failure", home: 'levels/extract.ts', kind: 'wording', members: [CODE_NOT_FOUND] },
  {
    name: 'the fates of unfinished trials',
    home: 'orchestrator/report/fates.ts',
    kind: 'wording',
    members: [NEVER_GENERATED, NOT_EXTRACTED, NOT_CONVERTED, NOT_SIMULATED],
  },
];

const stringValue = (node: ts.Node): string | undefined => (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined);

/** The key of an object literal's property written as a name or a string (`headless:`, `'headless-ws':`). */
const propertyName = (node: ts.ObjectLiteralElementLike): string | undefined =>
  ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node) || ts.isShorthandPropertyAssignment(node)
    ? ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)
      ? node.name.text
      : undefined
    : undefined;

/**
 * The string members of a list written in one place: an array's elements, a union's literal types, a
 * chain's compared literals, an object literal's keys (a record keyed by the members).
 */
function groupsOf(file: ts.SourceFile): Array<{ node: ts.Node; values: string[] }> {
  const groups: Array<{ node: ts.Node; values: string[] }> = [];
  const isChain = (node: ts.Node): node is ts.BinaryExpression =>
    ts.isBinaryExpression(node) && (node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken || node.operatorToken.kind === ts.SyntaxKind.BarBarToken);
  const compared = (node: ts.Node): string[] => {
    if (ts.isParenthesizedExpression(node)) return compared(node.expression);
    if (isChain(node)) return [...compared(node.left), ...compared(node.right)];
    const equality = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken];
    if (ts.isBinaryExpression(node) && equality.includes(node.operatorToken.kind))
      return [stringValue(node.left), stringValue(node.right)].filter((v) => v !== undefined);
    return [];
  };
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) groups.push({ node, values: node.elements.map(stringValue).filter((v) => v !== undefined) });
    if (ts.isObjectLiteralExpression(node)) groups.push({ node, values: node.properties.map(propertyName).filter((v) => v !== undefined) });
    if (ts.isUnionTypeNode(node))
      groups.push({ node, values: node.types.map((t) => (ts.isLiteralTypeNode(t) ? stringValue(t.literal) : undefined)).filter((v) => v !== undefined) });
    if (isChain(node) && !isChain(node.parent)) groups.push({ node, values: compared(node) });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return groups;
}

/** The places outside a list's home that write the list again. */
function listCopies(files: ReadonlyArray<{ path: string; text: string }>, list: ListRule): Finding[] {
  const members = new Set(list.members);
  const findings: Finding[] = [];
  for (const { path, text } of files) {
    if (path === list.home) continue;
    const file = parse(path, text);
    const at = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    if (list.kind === 'enumeration') {
      for (const { node, values } of groupsOf(file)) {
        const named = [...new Set(values.filter((v) => members.has(v)))];
        if (named.length >= 2 && list.kept?.[`${path} ${named.join(' ')}`] === undefined) findings.push({ path, line: at(node), text: named.join(' ') });
      }
    } else {
      visitLiterals(file, (node, value) => {
        for (const member of list.members) if (value.includes(member)) findings.push({ path, line: at(node), text: member });
      });
    }
  }
  return findings;
}

describe('each list of allowed values is written once', () => {
  const files = product();
  for (const list of LISTS) {
    it(`${list.name}: only ${list.home}`, () => {
      expect(files.map((f) => f.path)).toContain(list.home);
      expect(
        listCopies(
          files.filter((f) => f.path === list.home),
          { ...list, home: '' },
        ).length,
      ).toBeGreaterThan(0);
      expect(listCopies(files, list).map(shown)).toEqual([]);
      // A kept group must still be there, or the exception is stale.
      const unkept = listCopies(files, { ...list, kept: {} }).map((f) => `${f.path} ${f.text}`);
      for (const key of Object.keys(list.kept ?? {})) expect(unkept, key).toContain(key);
    });
  }

  it('names planted copies: a zod enum, a union type, a chain of comparisons, a choices list, a reason quoted in a help text, a record keyed by the members', () => {
    const engines = LISTS.find((l) => l.name === 'engine kinds')!;
    const lineEnds = LISTS.find((l) => l.name === 'prompt line ends')!;
    const fates = LISTS.find((l) => l.name === 'the fates of unfinished trials')!;
    const planted = {
      path: 'orchestrator/planted.ts',
      text: [
        "export const kinds = z.enum(['headless', 'unity']);",
        "export type Kind = 'headless-ws' | 'bridge' | 'other';",
        "export const remote = (k: string) => k === 'unity' || (k === 'bridge' && true);",
        "export const one = (k: string) => k === 'unity';",
        `export const help = \`a trial with no file is "${NEVER_GENERATED}"\`;`,
        "export const flag = option('--newlines <mode>', 'line ends', { choices: ['lf', 'keep'] });",
        "export const starts = { unity: startUnity, 'headless-ws': startFleet };",
      ].join('\n'),
    };
    expect(listCopies([planted], engines).map(shown)).toEqual([
      'orchestrator/planted.ts:1 "headless unity"',
      'orchestrator/planted.ts:2 "headless-ws bridge"',
      'orchestrator/planted.ts:3 "unity bridge"',
      'orchestrator/planted.ts:7 "unity headless-ws"',
    ]);
    expect(listCopies([planted], fates).map(shown)).toEqual([`orchestrator/planted.ts:5 ${JSON.stringify(NEVER_GENERATED)}`]);
    expect(listCopies([planted], lineEnds).map(shown)).toEqual(['orchestrator/planted.ts:6 "lf keep"']);
  });
});

/** The one file that states the evaluator's movement threshold. */
const THRESHOLD_FILE = 'scoring/stability.ts';

/** Constants named for a movement threshold, declared with a number: `const MOVEMENT_THRESHOLD = 0.1`. */
function thresholdConstants(path: string, text: string): Finding[] {
  const file = parse(path, text);
  const findings: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      /MOVEMENT|THRESHOLD/i.test(node.name.text) &&
      node.initializer &&
      ts.isNumericLiteral(node.initializer) &&
      node.initializer.text === String(OFFICIAL_MOVEMENT_THRESHOLD)
    ) {
      findings.push({ path, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: node.name.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

describe('one movement threshold', () => {
  it(`only ${THRESHOLD_FILE} declares it; the rest import it`, () => {
    const files = product();
    const found = files.flatMap((f) => thresholdConstants(f.path, f.text));
    expect(found.map(shown)).toEqual([`${THRESHOLD_FILE}:${found[0]?.line} "OFFICIAL_MOVEMENT_THRESHOLD"`]);
  });

  it('names a planted second one', () => {
    expect(
      thresholdConstants('scoring/explain/planted.ts', 'const x = 1;\nexport const MOVEMENT_THRESHOLD = 0.1;\nconst REST_SPIN = 0.1;\n').map(shown),
    ).toEqual(['scoring/explain/planted.ts:2 "MOVEMENT_THRESHOLD"']);
  });
});
