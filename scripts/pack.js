#!/usr/bin/env node
'use strict'
// `npm run pack:local [-- <folder>]`: the package as an app installs it, from
// this checkout, while it is not on the npm registry: the main package and the
// platform package holding the binary `npm install` built here, packed as
// tarballs into <folder> (default `./pack`), the main package with its
// published package.json (scripts/manifest.js: no `prepare`). Prints the
// install command. (.ci/consumer.sh proves such an install in a fresh app.)

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const { publishedManifest } = require('./manifest.js')

const root = path.resolve(__dirname, '..')
const dest = path.resolve(process.argv[2] ?? path.join(root, 'pack'))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

const binaries = fs.readdirSync(root).filter((f) => /^symfonic-core\..+\.node$/.test(f))
if (binaries.length !== 1) {
  console.error(
    binaries.length === 0
      ? 'pack: no symfonic-core.<platform>.node here; build it first (npm install, or npm run build)'
      : `pack: several binaries here (${binaries.join(', ')}); keep only this platform's`,
  )
  process.exit(1)
}
const binary = binaries[0]
const triple = binary.slice('symfonic-core.'.length, -'.node'.length)
const platformDir = path.join(root, 'npm', triple)
if (!fs.existsSync(platformDir)) {
  console.error(`pack: no npm/${triple} platform package for ${binary}`)
  process.exit(1)
}

fs.mkdirSync(dest, { recursive: true })
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-pack-'))
try {
  const platformStage = path.join(stage, 'platform')
  fs.cpSync(platformDir, platformStage, { recursive: true })
  fs.copyFileSync(path.join(root, binary), path.join(platformStage, binary))
  const pack = (cwd, extra = []) => execFileSync(npm, ['pack', '--silent', ...extra, '--pack-destination', dest], { cwd, encoding: 'utf8', shell: process.platform === 'win32' }).trim().split('\n').pop()
  const platformTgz = pack(platformStage)
  // The main package's files (as `files` selects them) with the published
  // package.json (no `prepare`), packed without scripts.
  const mainStage = path.join(stage, 'main')
  const listing = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' }))
  for (const { path: file } of listing[0].files) {
    if (file === 'package.json') continue
    fs.mkdirSync(path.dirname(path.join(mainStage, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(mainStage, file))
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  fs.writeFileSync(path.join(mainStage, 'package.json'), JSON.stringify(publishedManifest(pkg), null, 2) + '\n')
  const mainTgz = pack(mainStage, ['--ignore-scripts'])
  const rel = (f) => path.join(dest, f)
  console.log(`packed into ${dest}:\n  ${mainTgz}\n  ${platformTgz}\n\nin your app:\n  npm install ${rel(mainTgz)} ${rel(platformTgz)}`)
} finally {
  fs.rmSync(stage, { recursive: true, force: true })
}
