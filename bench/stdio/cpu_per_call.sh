#!/usr/bin/env bash
# CPU per stdio `tools/call echo`, split into user and kernel time, with the context switches and
# the system calls a call costs, for each server given and for the kit's limit_stdio_fast (the
# raw loop writing its answers in 2 KiB pieces, as the SDK's transport does). Each server reads
# `initialize` and N calls from a file and writes to /dev/null, so the figures are the server's
# alone (no client shares the machine's two cores); the rounds interleave the servers, so load
# from others falls on all of them alike. CPU comes from wait4's rusage (microseconds, not the
# 10 ms ticks of /usr/bin/time); system calls from `strace -f -c` in one extra run per server.
#   cpu_per_call.sh DEMO_SERVER... [-- N [ROUNDS]]      (N: 300000, ROUNDS: 3)
# Prints one line per server and round, then each server's medians, and the system calls per
# 1,000 calls (every thread, start-up and shutdown included: divide the difference, not the
# totals, when comparing small counts).
# Needs: g++, gcc, Boost.JSON headers, strace (skipped with a note when missing).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
default_n=300000
usage="cpu_per_call.sh DEMO_SERVER... [-- N [ROUNDS]]"
# shellcheck source=limit-lib.sh
source "$here/limit-lib.sh" "$@"
rounds="${more[0]:-3}"

# The runner: the server's stdin from the file, stdout and stderr to /dev/null, its rusage.
cat > "$work/run.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char** argv) {
  const double n = atof(argv[1]);
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open(argv[2], O_RDONLY), out = open("/dev/null", O_WRONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execv(argv[3], argv + 3);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  const double user = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec;
  const double sys = ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
  printf("%.3f %.3f %.3f %ld %ld %d\n", user / n, sys / n, (user + sys) / n, ru.ru_nvcsw,
         ru.ru_nivcsw, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
  return 0;
}
C
gcc -O2 "$work/run.c" -o "$work/run"

write_calls "$work/calls" "$n" cpu_per_call.sh

all=("$work/limit_stdio_fast" "${servers[@]}")
args_of() { [[ "$1" == */limit_stdio_fast ]] || echo --no-rate-limit --task-store :memory:; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %5s %9s %9s %9s %5s %6s\n' server round user_us sys_us cpu_us vcs ivcs
for ((r = 1; r <= rounds; ++r)); do
  for s in "${all[@]}"; do
    # shellcheck disable=SC2046
    read -r u k c v iv rc < <("$work/run" "$n" "$work/calls" "$s" $(args_of "$s"))
    [[ "$rc" == 0 ]] || { echo "cpu_per_call.sh: $s exited with $rc" >&2; exit 1; }
    printf '%-24s %5d %9s %9s %9s %5s %6s\n' "$(basename "$s")" "$r" "$u" "$k" "$c" "$v" "$iv" |
      tee -a "$work/rows"
  done
done
echo "medians of $rounds rounds (µs per call):"
for s in "${all[@]}"; do
  b="$(basename "$s")"
  awk -v b="$b" '$1 == b { u[++k] = $3; s[k] = $4; c[k] = $5 }
    function med(a, k,   i, j, t) { for (i = 1; i <= k; ++i) for (j = i + 1; j <= k; ++j)
        if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    END { printf "%-24s user %.3f  sys %.3f  cpu %.3f\n", b, med(u, k), med(s, k), med(c, k) }' \
    "$work/rows"
done
if ! command -v strace > /dev/null; then
  echo "strace missing: no system call counts"
  exit 0
fi
echo "system calls per 1,000 calls (strace -f -c, one run):"
for s in "${all[@]}"; do
  # shellcheck disable=SC2046
  strace -f -c -o "$work/strace" "$s" $(args_of "$s") < "$work/calls" > /dev/null 2>&1
  awk -v b="$(basename "$s")" -v n="$n" '
    # % time, seconds, usecs/call, calls, [errors], syscall
    (NF == 5 || NF == 6) && $4 ~ /^[0-9]+$/ && $NF != "total" { calls[$NF] = $4 }
    END { printf "%-24s", b
          for (k in calls) if (calls[k] * 1000 / n >= 0.05) printf " %s=%.2f", k, calls[k] * 1000 / n
          printf "\n" }' "$work/strace"
done
