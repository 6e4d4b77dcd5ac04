/** A benchmark suite returns rows of measured numbers (printed as a table, saved as JSON). */
export interface BenchSuite {
  name: string;
  description: string;
  run(): Promise<Array<Record<string, string | number>>>;
  /** Runs only when named (`npm run bench -- <name>`): a quick subset of another suite, or one too long for every run (coverage). */
  onlyWhenNamed?: boolean;
}
