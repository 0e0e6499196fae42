#!/usr/bin/env bash
# Fails when a C++ file is not formatted with clang-format 14 and the repository's .clang-format,
# or is longer than 600 lines (a file a newcomer can read in one sitting).
set -euo pipefail
cd "$(dirname "$0")/.."
fmt="$(command -v clang-format-14 || command -v clang-format)"
"$fmt" --version | grep -q "version 14" || { echo "check-format: clang-format 14 needed" >&2; exit 1; }
bad=()
while IFS= read -r f; do
  "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.hpp' '*.ipp')
if ((${#bad[@]} > 0)); then
  printf 'not formatted (run: clang-format -i FILE):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
long=()
while IFS= read -r f; do
  (($(wc -l <"$f") > 600)) && long+=("$f ($(wc -l <"$f") lines)")
done < <(git ls-files '*.cpp' '*.hpp' '*.ipp')
if ((${#long[@]} > 0)); then
  printf 'longer than 600 lines (split it):\n' >&2
  printf '  %s\n' "${long[@]}" >&2
  exit 1
fi
echo "format: $(git ls-files '*.cpp' '*.hpp' '*.ipp' | wc -l) files ok"
