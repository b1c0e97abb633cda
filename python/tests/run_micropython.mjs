#!/usr/bin/env node
// Runs python/tests/test_pson.py and test_uadp.py under real MicroPython: the official
// WebAssembly port (npm @micropython/micropython-webassembly-pyscript, pinned
// in python/package.json), loaded into Node.js.
//
//   npm ci --prefix python          # once
//   node python/tests/run_micropython.mjs
//
// The package source, the tests and the vector files are copied into the
// port's in-memory filesystem (/wb/...), then tests/run_micropython.py runs
// every test_* function. Prints a line per module and
// "micropython: N passed, N failed, N skipped"; exits 1 when a test failed
// (or none ran), 2 when MicroPython itself failed.
//
// Environment: PSON_VECTORS / UADP_VECTORS (other vector files), PSON_SEED /
// UADP_SEED (the property tests' seeds), MP_HEAP_MB (MicroPython heap,
// default 256). Arguments: test module names (default: all of them).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const testsDir = dirname(fileURLToPath(import.meta.url));
const pyRoot = resolve(testsDir, "..");
const vectorFiles = {
  "pson.json": process.env.PSON_VECTORS
    ? resolve(process.env.PSON_VECTORS)
    : resolve(pyRoot, "..", "vectors", "pson.json"),
  "uadp.json": process.env.UADP_VECTORS
    ? resolve(process.env.UADP_VECTORS)
    : resolve(pyRoot, "..", "vectors", "uadp.json"),
};
const modules = process.argv.slice(2).length ? process.argv.slice(2) : ["test_pson", "test_uadp"];
for (const m of modules) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(m)) {
    console.error(`not a module name: ${m}`);
    process.exit(2);
  }
}

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

// ---- filesystem: /wb/python/{wirebench_device,tests}, /wb/vectors/{pson,uadp}.json
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
for (const f of [...modules.map((m) => `${m}.py`), "_testkit.py", "run_micropython.py"]) {
  FS.writeFile(`/wb/python/tests/${f}`, readFileSync(join(testsDir, f)));
}
for (const [name, path] of Object.entries(vectorFiles)) {
  if (existsSync(path)) {
    FS.writeFile(`/wb/vectors/${name}`, readFileSync(path));
  } else {
    console.error(`warning: vector file ${path} not found`);
  }
}
// MicroPython's os has no environment: hand the settings over as a module.
const env = {};
for (const k of ["PSON_SEED", "UADP_SEED"]) {
  if (process.env[k]) env[k] = String(Number(process.env[k]));
}
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
_r = run_micropython.main(${JSON.stringify(modules)}, "micropython")
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
