// Pins the page's Content-Security-Policy to this build: trunk writes one inline module script (the loader,
// whose file names change with every build), so its SHA-256 is computed here and put into a CSP <meta> in
// dist/index.html. Everything else must come from the page's own origin; wasm may be compiled
// ('wasm-unsafe-eval'), nothing may be eval'd, and only style attributes (the grid's sizes) may be inline.
//
//   node scripts/csp.mjs dist/index.html
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2] ?? "dist/index.html";
let html = readFileSync(file, "utf8");
const scripts = [...html.matchAll(/<script(?: [^>]*)?>([\s\S]*?)<\/script>/g)].filter((m) => !/\ssrc=/.test(m[0]));
if (scripts.length !== 1) {
  console.error(`csp.mjs: expected one inline script in ${file}, found ${scripts.length}`);
  process.exit(1);
}
const hash = createHash("sha256").update(scripts[0][1], "utf8").digest("base64");
const policy = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${hash}' 'wasm-unsafe-eval'`,
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' blob:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join("; ");
html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n?/, "");
html = html.replace(/(<meta charset="utf-8" \/>)/, `$1\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`);
if (!html.includes(hash)) {
  console.error("csp.mjs: could not place the policy (no <meta charset=\"utf-8\" />?)");
  process.exit(1);
}
writeFileSync(file, html);
console.log(`csp.mjs: ${file} pinned to sha256-${hash}`);
