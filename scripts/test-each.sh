#!/usr/bin/env bash
# `npm run test:each`: every test file run alone (`npx vitest run <file>`, a vitest process of its own),
# so a file that passes only after another file built something for it shows up. Prints one line per
# file (pass or FAIL, seconds), then `N passed, N failed` over files; exits 1 when any file failed.
#
#   scripts/test-each.sh                      every test/**/*.test.ts, in name order
#   scripts/test-each.sh --shuffle            the same in a random order (`shuf`)
#   scripts/test-each.sh test/a.test.ts …     only these files
#
# Each file's output goes to test/.out/each/<file path with / as __>.log (read it when a file fails).
set -u -o pipefail
shopt -s globstar nullglob
cd "$(dirname "$0")/.."

shuffle=0
files=()
for arg in "$@"; do
  if [ "$arg" = --shuffle ]; then shuffle=1; else files+=("$arg"); fi
done
[ ${#files[@]} -eq 0 ] && files=(test/**/*.test.ts)
[ $shuffle -eq 1 ] && mapfile -t files < <(printf '%s\n' "${files[@]}" | shuf)

logs=test/.out/each
mkdir -p "$logs"
passed=0
failed=0
failures=()
for file in "${files[@]}"; do
  log="$logs/${file//\//__}.log"
  start=$(date +%s)
  # vitest reads a file argument as a filter; --passWithNoTests is not given, so a filter that matches
  # no file fails, and the summary line below shows how many files it ran.
  npx vitest run "$file" >"$log" 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  ran=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +Test Files ' | tail -1 | sed 's/^ *//')
  if [ $status -eq 0 ]; then
    passed=$((passed + 1))
    printf 'pass  %4ds  %s  (%s)\n' "$seconds" "$file" "$ran"
  else
    failed=$((failed + 1))
    failures+=("$file")
    printf 'FAIL  %4ds  %s  (%s; exit %d, log %s)\n' "$seconds" "$file" "$ran" "$status" "$log"
  fi
done
for file in "${failures[@]}"; do echo "failed alone: $file"; done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
