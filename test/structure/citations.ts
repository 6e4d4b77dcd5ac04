import ts from 'typescript';

/**
 * Repository paths cited in the comments of a source file: rooted (`bridge/trace.ts`), relative
 * (`./<name>.ts`), or a bare file name (`<name>.test.ts`). Comments are found outside the literals the
 * TypeScript parser reads (strings, templates, regular expressions), so a `//` in a URL is not one.
 */

export interface Citation {
  line: number;
  /** The path as written, trimmed of punctuation, cut before a placeholder (`<C>`), glob or anchor. */
  path: string;
  kind: 'rooted' | 'relative' | 'bare';
}

/** The comments of a parsed TypeScript or JavaScript file, each with the line it starts on. */
export function comments(file: ts.SourceFile): Array<{ line: number; text: string }> {
  const text = file.text;
  // `//` and `/*` outside the literals the parser found (strings, templates, regular expressions).
  const literals: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isRegularExpressionLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateLiteralToken(node) ||
      ts.isJsxText(node)
    ) {
      literals.push([node.getStart(file), node.getEnd()]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  literals.sort((a, b) => a[0] - b[0]);
  const out: Array<{ line: number; text: string }> = [];
  const pattern = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
  let next = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    while (next < literals.length && literals[next]![1] <= m.index) next += 1;
    const literal = literals[next];
    if (literal && literal[0] <= m.index) {
      pattern.lastIndex = literal[1];
      continue;
    }
    out.push({ line: file.getLineAndCharacterOfPosition(m.index).line + 1, text: m[0] });
  }
  return out;
}

const XML_DOC_TAG =
  /<\/?(?:summary|remarks|returns|param|typeparam|paramref|typeparamref|see|seealso|c|code|para|value|exception|example|list|item|term|description|inheritdoc)\b[^>]*>/g;

/**
 * The comments of a C# file (the Unity plugin): `//` and `/* … *\/` outside string and character
 * literals (regular and verbatim strings are blanked first, keeping the line breaks), without their
 * XML documentation tags (`<summary>`, `<see cref="…"/>`).
 */
export function cSharpComments(text: string): Array<{ line: number; text: string }> {
  const blank = (m: string) => m.replace(/[^\n]/g, ' ');
  const code = text.replace(/@"(?:""|[^"])*"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])'/g, blank);
  return [...code.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => ({
    line: code.slice(0, m.index).split('\n').length,
    text: text.slice(m.index, m.index + m[0].length).replace(XML_DOC_TAG, ' '),
  }));
}

/** File extensions a bare name must carry to count as a citation of a file. */
const FILE_NAME = /\.(?:test\.ts|e2e\.test\.ts|ts|mjs|js|md|cs|json|yaml|yml|csv)$/;

/** The repository paths a piece of text cites; `roots` are the repository's top-level entries. */
export function citedPaths(text: string, roots: ReadonlySet<string>): Array<Omit<Citation, 'line'> & { offset: number }> {
  const out: Array<Omit<Citation, 'line'> & { offset: number }> = [];
  for (const m of text.matchAll(/[^\s`'"()[\]{},;]+/g)) {
    const token = m[0].replace(/^[*<>|]+/, '').replace(/[.:!?|>]+$/, '');
    if (token.includes('://') || token.startsWith('@') || token.startsWith('-')) continue;
    // A placeholder, glob or anchor ends what can be checked: keep the folder before it.
    const cut = token.search(/[<{*…#$]|:\d/);
    const checked = cut < 0 ? token : token.slice(0, token.lastIndexOf('/', cut) + 1);
    const before = text[m.index - 1] ?? ' ';
    if (checked.length === 0 || before === '/' || before === '.') continue;
    const top = checked.split('/')[0]!;
    if (checked.startsWith('./') || checked.startsWith('../')) out.push({ path: checked, kind: 'relative', offset: m.index });
    else if (roots.has(top) && checked.includes('/') && (checked.includes('.') || checked.endsWith('/')))
      out.push({ path: checked, kind: 'rooted', offset: m.index });
    else if (!checked.includes('/') && FILE_NAME.test(checked) && /^[\w.-]+$/.test(checked) && /[a-z]/.test(checked[0]!))
      out.push({ path: checked, kind: 'bare', offset: m.index });
  }
  return out;
}

/** Every citation in a parsed source file's comments (or in the given comments), with the line it is on. */
export function commentCitations(file: ts.SourceFile | Array<{ line: number; text: string }>, roots: ReadonlySet<string>): Citation[] {
  const out: Citation[] = [];
  for (const comment of Array.isArray(file) ? file : comments(file)) {
    for (const c of citedPaths(comment.text, roots)) {
      const line = comment.line + comment.text.slice(0, c.offset).split('\n').length - 1;
      out.push({ line, path: c.path, kind: c.kind });
    }
  }
  return out;
}
