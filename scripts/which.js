'use strict'
// Whether a program is on the PATH, looked up in JS (no shell, so Windows too).

const fs = require('node:fs')
const path = require('node:path')

/** Whether `bin` is an executable file in a folder of `envPath` (with PATHEXT on Windows). */
function onPath(bin, envPath = process.env.PATH ?? '', platform = process.platform) {
  const exts = platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';') : ['']
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === '') continue
    for (const ext of exts) {
      try {
        const file = path.join(dir, bin + ext)
        if (!fs.statSync(file).isFile()) continue
        if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK)
        return true
      } catch {}
    }
  }
  return false
}

module.exports = { onPath }
