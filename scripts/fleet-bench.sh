#!/usr/bin/env bash
# fleet-bench.sh - the fleet figures of docs/scale-out.md, regenerated on this machine:
#   1. 10,000 devices every 10 s for 60 s at QoS 1 through the embedded broker (rumqttd, a child
#      process) and through mosquitto, json/pson/protobuf: delivery, latency, uplink bytes/s,
#      broker and harness CPU;
#   2. one fleet (default 4,000 devices every 2 s for 30 s) run by one process and by 4 shard
#      processes merged, through one mosquitto: delivery counts and latency percentiles side by side.
# usage: scripts/fleet-bench.sh [OUT_DIR]
#   env: WB=path/to/wirebench, DEVICES, SHARD_DEVICES, PARTS (default "brokers,shards")
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wb="${WB:-$root/target/release/wirebench}"
out="${1:-$root/out/fleet-bench}"
devices="${DEVICES:-10000}"
shard_devices="${SHARD_DEVICES:-4000}"
parts="${PARTS:-brokers,shards}"
mkdir -p "$out"
[ -x "$wb" ] || { echo "fleet-bench: build first: cargo build --release -p wirebench" >&2; exit 1; }

summary() {  # the one-line figures of each run of a results file
    python3 - "$1" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["fleet"]
for r in f["runs"]:
    d, l, c, t = r["delivery"], r["latency_us"], r["cpu"], r["traffic"]
    q = lambda k: f'{l[k]["value"]/1e3:.2f} [{l[k]["lo"]/1e3:.2f}-{l[k]["hi"]/1e3:.2f}]' if l.get(k) else "-"
    broker = f'{c["broker_cores"]:.3f} cores, {c["broker_rss_bytes"]/2**20:.0f} MiB' if c.get("broker_cores") is not None else "-"
    print(f'{r["format"]:>9} {r["devices"]:>6} dev  {r["connect"]["connected"]}/{r["connect"]["attempted"]} connected  '
          f'{d["received"]}/{d["sent"]} delivered (lost {d["lost"]}, dup {d["duplicated"]})  '
          f'latency ms p50 {q("p50")} p90 {q("p90")} p99 {q("p99")}  '
          f'wire {t["wire_bytes_per_s"]/1e3:.1f} kB/s  broker {broker}  harness {c["harness_cores"]:.3f} cores, '
          f'{c["process_rss_bytes"]/2**20:.0f} MiB  [{c["bottleneck"]}]')
if f.get("clock"):
    print("clock skew bound:", f["clock"])
PY
}

for broker in embedded mosquitto; do
    [[ ",$parts," == *,brokers,* ]] || break
    echo "== $devices devices every 10 s for 60 s, QoS 1, broker $broker"
    "$wb" fleet --devices "$devices" --every 10s --duration 60s -f json,pson,protobuf --broker "$broker" \
        --out "$out/fleet-$broker.json" -o md > "$out/fleet-$broker.md"
    summary "$out/fleet-$broker.json"
done

[[ ",$parts," == *,shards,* ]] || exit 0
echo "== one process vs 4 shards: $shard_devices devices every 2 s for 30 s, QoS 1, one mosquitto"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
conf="$out/mosquitto.conf"
printf 'listener %s 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nmax_queued_messages 100000\n' "$port" > "$conf"
mosq=$(command -v mosquitto || echo /usr/sbin/mosquitto)
"$mosq" -c "$conf" 2>"$out/mosquitto.log" &
mpid=$!
trap 'kill $mpid 2>/dev/null || true' EXIT
sleep 0.5
url="mqtt://127.0.0.1:$port"
common=(--devices "$shard_devices" --every 2s -f json --broker "$url")
"$wb" fleet "${common[@]}" --duration 5s --run-id warm >/dev/null   # the broker warmed up
common+=(--duration "${SHARD_DURATION:-30s}")
reps="${REPS:-3}"
# One process and 4 shards alternate, $reps times each: the spread over repetitions is the
# run-to-run variation that a single run's (sampling) confidence interval does not show.
for rep in $(seq 1 "$reps"); do
    "$wb" fleet "${common[@]}" --run-id "one$rep" --out "$out/one-$rep.json" >/dev/null
    pids=()
    for i in 0 1 2 3; do
        "$wb" fleet "${common[@]}" --run-id "four$rep" --shard "$i/4" --out "$out/shard-$rep-$i.json" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    "$wb" merge "$out"/shard-$rep-{0,1,2,3}.json --out "$out/merged-$rep.json" >/dev/null
    echo "rep $rep, one process:"; summary "$out/one-$rep.json"
    echo "rep $rep, 4 shards merged:"; summary "$out/merged-$rep.json"
done
python3 - "$out" "$reps" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 8: 2.36, 10: 2.26}
def pct(kind, p):
    v = [json.load(open(f"{out}/{kind}-{r}.json"))["fleet"]["runs"][0]["latency_us"][p]["value"] for r in range(1, reps + 1)]
    m = statistics.mean(v)
    h = t.get(len(v), 2.0) * statistics.stdev(v) / len(v) ** 0.5 if len(v) > 1 else 0.0
    return m, h, v
for p in ["p50", "p90", "p99"]:
    (ma, ha, va), (mb, hb, vb) = pct("one", p), pct("merged", p)
    overlap = ma - ha <= mb + hb and mb - hb <= ma + ha
    print(f"{p}: one process {ma/1e3:.3f} ± {ha/1e3:.3f} ms {[x/1e3 for x in va]}; 4 shards {mb/1e3:.3f} ± {hb/1e3:.3f} ms {[x/1e3 for x in vb]}; "
          f"95 % CIs over the repetitions {'overlap' if overlap else 'do NOT overlap'}")
PY
