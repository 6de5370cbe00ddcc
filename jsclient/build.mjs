// Builds the browser bundle into static/dist with content-hashed names and writes
// static/dist/manifest.json ({"panel.js": "panel-HASH.js", ...}), which the Go side reads so
// pages name the right file. The output depends only on the sources and the pinned esbuild:
// `npm ci && npm run build` reproduces the committed files byte for byte (CI checks it).
import * as esbuild from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const outdir = "static/dist";
const common = {
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022", "chrome110", "firefox115", "safari16"],
  outdir,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  metafile: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
  tsconfig: "jsclient/tsconfig.json",
};

// Only the entry points: chunks of dynamic imports are found by the bundle itself.
function outputsOf(result, entry) {
  const names = {};
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (out.entryPoint !== entry) continue;
    const logical = path.basename(out.entryPoint).replace(/\.ts$/, ".js");
    names[logical] = path.relative(outdir, file);
  }
  return names;
}

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

// The decode worker first: the panel bundle learns the worker's hashed name at build time.
const workerEntry = "jsclient/src/decode-worker.ts";
const worker = outputsOf(await esbuild.build({ ...common, entryPoints: [workerEntry] }), workerEntry);
const panelEntry = "jsclient/src/panel.ts";
const panel = outputsOf(
  await esbuild.build({
    ...common,
    entryPoints: [panelEntry],
    splitting: true, // three.js and uPlot load only on pages that show them
    define: { __DECODE_WORKER__: JSON.stringify(worker["decode-worker.js"]) },
  }),
  panelEntry,
);
// Stylesheets the libraries need (uPlot's legend and cursor), bundled as one file.
const cssEntry = "jsclient/src/vendor.css";
const css = outputsOf(await esbuild.build({ ...common, entryPoints: [cssEntry] }), cssEntry);
const manifest = { ...worker, ...panel, ...css };
const sorted = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(path.join(outdir, "manifest.json"), JSON.stringify(sorted, null, 2) + "\n");
