#!/usr/bin/env node
// Runs python/tests/test_pson.py under real MicroPython: the official
// WebAssembly port (npm @micropython/micropython-webassembly-pyscript, pinned
// in python/package.json), loaded into Node.js.
//
//   npm ci --prefix python          # once
//   node python/tests/run_micropython.mjs
//
// The package source, the tests and the vector file are copied into the
// port's in-memory filesystem (/wb/...), then tests/run_micropython.py runs
// every test_* function. Prints "micropython: N passed, N failed, N skipped";
// exits 1 when a test failed (or none ran), 2 when MicroPython itself failed.
//
// Environment: PSON_VECTORS (another vector file), PSON_SEED (the property
// test's seed), MP_HEAP_MB (MicroPython heap, default 256).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const testsDir = dirname(fileURLToPath(import.meta.url));
const pyRoot = resolve(testsDir, "..");
const vectors = process.env.PSON_VECTORS
  ? resolve(process.env.PSON_VECTORS)
  : resolve(pyRoot, "..", "vectors", "pson.json");

const require = createRequire(join(pyRoot, "package.json"));
let entry;
try {
  entry = require.resolve("@micropython/micropython-webassembly-pyscript");
} catch (e) {
  console.error("MicroPython is not installed: run `npm ci --prefix python` first");
  process.exit(2);
}
const { loadMicroPython } = await import(pathToFileURL(entry).href);

const heapMb = Number(process.env.MP_HEAP_MB || 256);
const mp = await loadMicroPython({
  heapsize: heapMb * 1024 * 1024,
  pystack: 64 * 1024,
  linebuffer: true,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

// ---- filesystem: /wb/python/{wirebench_device,tests}, /wb/vectors/pson.json
const FS = mp.FS;
for (const d of ["/wb", "/wb/python", "/wb/python/wirebench_device", "/wb/python/tests", "/wb/vectors"]) {
  FS.mkdir(d);
}
const pkgDir = join(pyRoot, "wirebench_device");
for (const f of readdirSync(pkgDir)) {
  if (f.endsWith(".py")) {
    FS.writeFile(`/wb/python/wirebench_device/${f}`, readFileSync(join(pkgDir, f)));
  }
}
for (const f of ["test_pson.py", "run_micropython.py"]) {
  FS.writeFile(`/wb/python/tests/${f}`, readFileSync(join(testsDir, f)));
}
if (existsSync(vectors)) {
  FS.writeFile("/wb/vectors/pson.json", readFileSync(vectors));
} else {
  console.error(`warning: vector file ${vectors} not found`);
}
// MicroPython's os has no environment: hand the settings over as a module.
const env = {};
if (process.env.PSON_SEED) env.PSON_SEED = String(Number(process.env.PSON_SEED));
FS.writeFile(
  "/wb/python/tests/_test_env.py",
  Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(v)}\n`).join(""),
);

// ---- run
let passed = 0;
let failed = 0;
try {
  mp.runPython(`
import sys
print("interpreter: MicroPython %s (%s), %s" % (".".join(str(x) for x in sys.implementation.version[:3]), sys.platform, sys.version))
sys.path.insert(0, "/wb/python/tests")
sys.path.insert(0, "/wb/python")
import run_micropython
_r = run_micropython.main("test_pson", "micropython")
_passed = _r[0]
_failed = _r[1]
`);
  passed = mp.globals.get("_passed");
  failed = mp.globals.get("_failed");
} catch (e) {
  console.error(`MicroPython raised: ${e && e.message ? e.message : e}`);
  process.exit(2);
}
process.exit(failed === 0 && passed > 0 ? 0 : 1);
