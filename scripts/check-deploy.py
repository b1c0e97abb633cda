#!/usr/bin/env python3
"""check-deploy.py - the Kubernetes manifests of deploy/kubernetes validate offline against the
Kubernetes schema (kubernetes-validate's bundled schemas, strict: unknown fields refused), a
manifest with a mistake is refused (so the check can fail), and the shard container's arguments
are ones `wirebench fleet` accepts (run with --check under the Indexed Job's environment).

usage: scripts/check-deploy.py --wirebench target/debug/wirebench [--k8s 1.31.0]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "deploy", "kubernetes", "fleet-job.yaml")


def validate(path, version):
    return subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", "-k", version, path],
        capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wirebench", required=True)
    ap.add_argument("--k8s", default="1.31.0")
    a = ap.parse_args()

    r = validate(MANIFEST, a.k8s)
    if r.returncode != 0:
        sys.exit(f"check-deploy: {MANIFEST} does not validate against Kubernetes {a.k8s}:\n{r.stdout}{r.stderr}")
    docs = [d for d in yaml.safe_load_all(open(MANIFEST)) if d]
    kinds = [d["kind"] for d in docs]
    print(f"check-deploy: {os.path.relpath(MANIFEST, ROOT)} valid against Kubernetes {a.k8s} (strict): {', '.join(kinds)}")

    # A mistake (a misspelt field) must be refused: the check can fail.
    bad = [dict(d) for d in docs]
    job = next(d for d in bad if d["kind"] == "Job")
    job["spec"] = dict(job["spec"], completionsMode=job["spec"].get("completionMode"))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump_all(bad, f)
    try:
        if validate(f.name, a.k8s).returncode == 0:
            sys.exit("check-deploy: a manifest with a misspelt field (completionsMode) passed validation")
    finally:
        os.unlink(f.name)

    # The shard's arguments, as the pod would run them.
    shard_job = next(d for d in docs if d["kind"] == "Job" and d["spec"].get("completionMode") == "Indexed")
    spec = shard_job["spec"]
    c = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    if env.get("JOB_COMPLETIONS") != str(spec["completions"]) or spec["parallelism"] != spec["completions"]:
        sys.exit("check-deploy: JOB_COMPLETIONS, completions and parallelism must be the same shard count")
    for index in range(spec["completions"]):
        subst = {"RUN_ID": "0c6f6d8e-1d1e-4d8e-9f0a-2b7c4a1d9e55", "JOB_COMPLETION_INDEX": str(index)}
        args = []
        for arg in c["args"]:
            for k, v in subst.items():
                arg = arg.replace(f"$({k})", v)
            args.append(arg)
        run_env = dict(os.environ, JOB_COMPLETION_INDEX=str(index), JOB_COMPLETIONS=env["JOB_COMPLETIONS"])
        r = subprocess.run([a.wirebench, *args, "--check"], capture_output=True, text=True, env=run_env)
        want = f"shard {index}/{spec['completions']}"
        if r.returncode != 0 or want not in r.stdout:
            sys.exit(f"check-deploy: shard {index}: `wirebench {' '.join(args)} --check` gave {r.returncode}: {r.stdout}{r.stderr}")
        print(f"check-deploy: shard {index}: {r.stdout.strip()}")
    print("check-deploy: ok")


if __name__ == "__main__":
    main()
