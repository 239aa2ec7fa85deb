#!/usr/bin/env bash
# The package as a user installs it, proven on this machine: the linux-x64-gnu
# platform package (with the release binary built by `npm ci`) and the main
# package are packed, then installed into a fresh app with cargo and rustc off
# the PATH, next to langchain, @langchain/core, @langchain/langgraph and zod
# from the registry (@openai/agents comes later: the package must load without it). The app requires and imports both entry points, runs a
# createAgent with both middlewares, runs its own jest test, and type-checks
# a CommonJS and an ESM consumer. Every package gets an `npm publish --dry-run`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
triple=linux-x64-gnu
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
version="$(node -p "require('$root/package.json').version")"
# The app uses the versions this repo is tested with.
pin() { node -p "require('$root/node_modules/$1/package.json').version"; }

echo "the platform package @symfonic/core-$triple with the release binary, and the main package with its published package.json (npm run pack:local)"
node "$root/scripts/pack.js" "$work" > /dev/null
cp -r "$root/npm/$triple" "$work/platform"
cp "$root/symfonic-core.$triple.node" "$work/platform/"
tar -tzf "$work/symfonic-core-$version.tgz" | grep -q '\.node$' && { echo "the main package must not ship a binary"; exit 1; }
tar -xzOf "$work/symfonic-core-$version.tgz" package/package.json | node -e '
const pkg = JSON.parse(require("fs").readFileSync(0, "utf8"))
const run = ["prepare", "preinstall", "install", "postinstall"].filter((s) => pkg.scripts && pkg.scripts[s])
if (run.length) { console.error(`the packed package.json has install-time scripts: ${run.join(", ")}`); process.exit(1) }
console.log("  the packed package.json has no prepare (nothing builds on install)")'
# As the release's `napi prepublish` does: the platform packages become
# optionalDependencies at this version (not in the repo's package.json, where
# npm ci would need lock entries for packages that are not published yet).
mkdir "$work/stage"
tar -xzf "$work/symfonic-core-$version.tgz" -C "$work/stage"
node -e '
const fs = require("fs"), path = require("path")
const [pkgFile, npmDir] = process.argv.slice(1)
const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"))
pkg.optionalDependencies = Object.fromEntries(fs.readdirSync(npmDir).sort().map((d) => [JSON.parse(fs.readFileSync(path.join(npmDir, d, "package.json"), "utf8")).name, pkg.version]))
fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + "\n")
console.log(`  optionalDependencies: ${Object.keys(pkg.optionalDependencies).length} platform packages at ${pkg.version}`)
' "$work/stage/package/package.json" "$root/npm"
rm "$work/symfonic-core-$version.tgz"
(cd "$work/stage/package" && npm pack --ignore-scripts --silent --pack-destination "$work" > /dev/null)

echo "npm publish --dry-run of every package"
(cd "$root" && npm publish --dry-run --ignore-scripts > "$work/publish-main.txt" 2>&1) || { cat "$work/publish-main.txt"; exit 1; }
(cd "$work/platform" && npm publish --dry-run > "$work/publish-$triple.txt" 2>&1) || { cat "$work/publish-$triple.txt"; exit 1; }
for dir in "$root"/npm/*/; do
  name="$(basename "$dir")"
  [ "$name" = "$triple" ] && continue
  cp -r "$dir" "$work/dry-$name"
  (cd "$work/dry-$name" && npm publish --dry-run > "$work/publish-$name.txt" 2>&1) || { cat "$work/publish-$name.txt"; exit 1; }
done
echo "  $(ls "$root"/npm | wc -l) platform packages and the main package: ok"

echo "a fresh app, cargo and rustc off the PATH"
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r d; do [ -n "$d" ] && [ ! -x "$d/cargo" ] && [ ! -x "$d/rustc" ] && printf '%s\n' "$d"; done | paste -sd: -)"
export PATH
if command -v cargo > /dev/null || command -v rustc > /dev/null; then echo "cargo/rustc still on the PATH"; exit 1; fi
mkdir "$work/app"
cd "$work/app"
npm init -y > /dev/null
npm install --no-audit --no-fund --loglevel=error \
  "$work/symfonic-core-$triple-$version.tgz" "$work/symfonic-core-$version.tgz" \
  "langchain@$(pin langchain)" "@langchain/core@$(pin @langchain/core)" "@langchain/langgraph@$(pin @langchain/langgraph)" "zod@$(pin zod)" \
  "jest@$(pin jest)" "typescript@$(pin typescript)" "@types/node@$(pin @types/node)" "@types/jest@$(pin @types/jest)"
test -f "node_modules/@symfonic/core-$triple/symfonic-core.$triple.node"
if find node_modules/@symfonic/core -name '*.node' | grep -q .; then echo "a binary inside the main package"; exit 1; fi

cp "$root"/.ci/consumer/agent.cjs "$root"/.ci/consumer/agent.mjs "$root"/.ci/consumer/consumer.test.js .
node agent.cjs
node agent.mjs
npx jest --ci consumer.test.js 2>&1 | tail -n 4

echo "@symfonic/core/openai-agents: without the SDK, then with it"
cp "$root"/.ci/consumer/openai-agents.mjs .
node openai-agents.mjs without
npm install --no-audit --no-fund --loglevel=error "@openai/agents@$(pin @openai/agents)"
node openai-agents.mjs
echo "without ai (an optional peer): every entry loads, and none loads ai"
test ! -e node_modules/ai
node -e '
require("@symfonic/core"); require("@symfonic/core/langchain")
const m = require("@symfonic/core/ai-sdk").toolMemory()
if (typeof m.prepareStep !== "function" || typeof m.tools.recall_tool_result.execute !== "function") process.exit(1)
if (Object.keys(require.cache).some((f) => /node_modules[\\/](ai|@ai-sdk)[\\/]/.test(f))) { console.error("ai was loaded"); process.exit(1) }'
node --input-type=module -e 'const { toolMemory } = await import("@symfonic/core/ai-sdk"); toolMemory()'
echo "  ok"

echo "docs/testing.md's set-up, as written, in an empty folder: its pinned dev dependencies, tsconfig.json, jest.config.js, and its tests through ts-jest"
mkdir "$work/testing-docs"
(
  cd "$work/testing-docs"
  npm init -y > /dev/null
  dev="$(node "$root/.ci/consumer/testing-docs.js" "$root")"
  npm install --no-audit --no-fund --loglevel=error \
    "$work/symfonic-core-$triple-$version.tgz" "$work/symfonic-core-$version.tgz" langchain @langchain/core @langchain/langgraph zod
  # shellcheck disable=SC2086
  npm install -D --no-audit --no-fund --loglevel=error $dev
  npx jest --ci 2> jest.txt || { cat jest.txt; exit 1; }
  if grep -q 'ts-jest\[config\] (WARN)' jest.txt; then cat jest.txt; echo "ts-jest warned about the documented tsconfig"; exit 1; fi
  tail -n 4 jest.txt
)

echo "tsc: the CommonJS and ESM consumers, against the installed package (and ai, which they use)"
npm install --no-audit --no-fund --loglevel=error "ai@$(pin ai)"
for mode in cjs esm; do
  [ -d "$root/__test__/types/$mode" ] || continue
  cp -r "$root/__test__/types/$mode" "$work/app/types-$mode"
  npx tsc -p "types-$mode"
  echo "  $mode: ok"
done
echo "consumer install: ok"
