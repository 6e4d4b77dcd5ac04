import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { issueReferenceProblems, issueReferences, scanned, scannedFiles } from './issue-references.js';

/**
 * No file of the repository names an issue by number — in comments, strings, test names or docs — so
 * every reason is readable where it stands (test/structure/issue-references.ts holds the rule).
 */

// The planted words are assembled so this file does not hold them itself.
const ISSUE = ['Iss', 'ue'].join('');

describe('no issue-number reference in the repository', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sbeval-issue-refs-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds none in any file outside node_modules, dist and test/fixtures', () => {
    const files = scannedFiles(PROJECT_ROOT);
    expect(files).toContain('README.md');
    expect(files).toContain('scoring/stability.ts');
    expect(issueReferenceProblems(PROJECT_ROOT, files)).toEqual([]);
  });

  it('catches a planted reference in a comment, a string and a doc, in every spelling', () => {
    const planted = [
      `// Engines are replaced (${ISSUE.toLowerCase()} 12, defect 2).`,
      `it('keeps the accounting (${ISSUE.toLowerCase()} 22, case 5)', () => {});`,
      `${ISSUE} 14's targets are not met.`,
      `See ${ISSUE.toLowerCase()}s #3 and the rest.`,
      'A plain reason with 12 issues fixed and no number after the word.',
    ].join('\n');
    expect(issueReferences(planted).map((r) => `${r.line}:${r.match.toLowerCase()}`)).toEqual(
      ['1:% 12', '2:% 22', '3:% 14', '4:%s #3'].map((r) => r.replace('%', ISSUE.toLowerCase())),
    );
  });

  it('reports a planted file by path and line, and skips the excluded folders and binaries', () => {
    mkdirSync(join(tmp, 'docs'), { recursive: true });
    writeFileSync(join(tmp, 'docs', 'page.md'), `# Page\n\nBefore ${ISSUE.toLowerCase()} 22 it differed.\n`);
    expect(issueReferenceProblems(tmp, ['docs/page.md'])).toEqual([`docs/page.md:3: "${ISSUE.toLowerCase()} 22"`]);
    expect(
      [
        'docs/page.md',
        'node_modules/x/a.js',
        'dist/index.js',
        'test/fixtures/a.txt',
        'scripts/bench/a/node_modules/b.js',
        'models/vit.onnx',
        'test/fixtures-like.ts',
      ].filter(scanned),
    ).toEqual(['docs/page.md', 'test/fixtures-like.ts']);
  });
});
