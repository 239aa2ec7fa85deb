'use strict'
// A hand-rolled SVG line chart (no plotting dependency): one panel per
// conversation, prompt size in thousands of tokens per model call, one line
// per strategy.

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * panels: [{ title, series: [{ label, color, dash?, values: number[] }] }]
 */
function lineChart({ title, subtitle, panels, yLabel }) {
  const W = 860
  const PH = 230 // panel height
  const M = { l: 64, r: 210, t: 86, b: 40, gap: 56 }
  const H = M.t + panels.length * PH + (panels.length - 1) * M.gap + M.b
  const out = []
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`)
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`)
  out.push(`<text x="${M.l}" y="26" font-size="16" font-weight="600">${esc(title)}</text>`)
  if (subtitle) out.push(`<text x="${M.l}" y="46" fill="#555">${esc(subtitle)}</text>`)
  panels.forEach((p, pi) => {
    const top = M.t + pi * (PH + M.gap)
    const pw = W - M.l - M.r
    const maxX = Math.max(1, ...p.series.map((s) => s.values.length - 1))
    const rawMax = Math.max(1, ...p.series.flatMap((s) => s.values))
    const step = niceStep(rawMax / 4)
    const maxY = Math.ceil(rawMax / step) * step
    const x = (i) => M.l + (i / maxX) * pw
    const y = (v) => top + PH - (v / maxY) * PH
    out.push(`<text x="${M.l}" y="${top - 10}" font-weight="600">${esc(p.title)}</text>`)
    for (let v = 0; v <= maxY + 1e-9; v += step) {
      out.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`)
      out.push(`<text x="${M.l - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#555">${fmt(v)}</text>`)
    }
    const xStep = niceStep(maxX / 8)
    for (let i = 0; i <= maxX; i += xStep) {
      out.push(`<text x="${x(i).toFixed(1)}" y="${top + PH + 16}" text-anchor="middle" fill="#555">${i + 1}</text>`)
    }
    out.push(`<line x1="${M.l}" x2="${M.l}" y1="${top}" y2="${top + PH}" stroke="#999"/>`)
    out.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${top + PH}" y2="${top + PH}" stroke="#999"/>`)
    if (pi === panels.length - 1) out.push(`<text x="${M.l + pw / 2}" y="${top + PH + 34}" text-anchor="middle" fill="#333">model call</text>`)
    out.push(`<text transform="translate(16 ${top + PH / 2}) rotate(-90)" text-anchor="middle" fill="#333">${esc(yLabel)}</text>`)
    p.series.forEach((s, si) => {
      const pts = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="${s.width || 2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} points="${pts}"/>`)
      const ly = top + 14 + si * 20
      out.push(`<line x1="${W - M.r + 16}" x2="${W - M.r + 40}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="${s.width || 2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`)
      out.push(`<text x="${W - M.r + 46}" y="${ly}">${esc(s.label)}</text>`)
    })
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

function niceStep(raw) {
  if (raw <= 1) return 1
  const p = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p
  return 10 * p
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(1)
}

module.exports = { lineChart }
