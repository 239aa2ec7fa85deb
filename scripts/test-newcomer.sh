#!/usr/bin/env bash
# `npm test` as a newcomer runs it: not root, and without redis-server,
# redis-cli or sqlite3 on the PATH. A copy of this checkout (its files, the
# built addon and node_modules) is made in a temporary folder owned by an
# unprivileged user (`symfonic-newcomer`, created when missing, when this runs
# as root), and `npm test` runs there with CI unset. It must pass, name every
# test file it left out with the program missing and how to install it, and
# run no package manager. Run by .ci/run; idempotent.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
user=symfonic-newcomer
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

echo "a copy of the checkout (tracked and untracked files, the addon, node_modules)"
mkdir "$work/repo"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | grep -zv '^node_modules$' | tar --null --ignore-failed-read -T - -cf - 2> /dev/null) | tar -xf - -C "$work/repo"
cp "$root"/symfonic-core.*.node "$work/repo/"
cp -a "$(readlink -f "$root/node_modules")" "$work/repo/node_modules"

echo "a PATH without redis-server, redis-cli, sqlite3 and cargo (the test hooks' build), where a package manager leaves a mark"
mkdir "$work/bin" "$work/home"
for pm in apt-get apt dpkg brew sudo; do
  printf '#!/bin/sh\necho "$0 $*" >> %s/home/package-manager-ran\nexit 1\n' "$work" > "$work/bin/$pm"
  chmod 755 "$work/bin/$pm"
done
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    b="$(basename "$f")"
    case "$b" in redis-server | redis-cli | sqlite3 | cargo | rustup | rustc) continue ;; esac
    [ -x "$f" ] && [ ! -e "$work/bin/$b" ] && ln -s "$f" "$work/bin/$b"
  done
done
[ -e "$work/bin/node" ] || { echo "node is not on the PATH"; exit 1; }

if [ "$(id -u)" = 0 ]; then
  id -u "$user" > /dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  chown -R "$user" "$work/repo" "$work/home"
  as() { runuser -u "$user" -- "$@"; }
  as test -x "$(readlink -f "$work/bin/node")" || { echo "$user cannot run $(readlink -f "$work/bin/node") (install Node where every user can)"; exit 1; }
else
  as() { "$@"; }
fi
echo "npm test as $(as id -un) (uid $(as id -u))"

status=0
(cd "$work/repo" && as env -i HOME="$work/home" PATH="$work/bin" LANG=C.UTF-8 npm_config_update_notifier=false npm test > "$work/out.txt" 2>&1) || status=$?
tail -n 12 "$work/out.txt"
[ "$status" = 0 ] || { echo "npm test failed for a newcomer (exit $status):"; grep -E '^(FAIL|  ●)' "$work/out.txt" | head -40; exit 1; }
# The notice names every file left out, as the test gate computes it for this PATH.
notice=$(cd "$root" && PATH="$work/bin" node -e 'const { gate, notice } = require("./__test__/support/needs.js"); process.stdout.write(notice(gate(process.cwd(), { PATH: process.env.PATH })))')
grep -q 'not run: cargo, redis-cli, redis-server, sqlite3 are not on the PATH' <<< "$notice" || { echo "the gate did not find the programs missing: $notice"; exit 1; }
while IFS= read -r expect; do
  grep -qF -- "$expect" "$work/out.txt" || { echo "npm test did not say: $expect"; exit 1; }
done <<< "$notice"
if [ -e "$work/home/package-manager-ran" ]; then echo "npm test ran a package manager: $(cat "$work/home/package-manager-ran")"; exit 1; fi
echo "npm test as a newcomer: ok"
