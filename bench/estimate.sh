#!/usr/bin/env bash
# Load benchmark of POST /v1/estimate against a bare gin handler that
# answers a constant, side by side, with wrk (apt-get install wrk).
# Usage: bench/estimate.sh [seconds per run, default 10]
# Loopback only; each run is bounded by its duration.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-10}"
command -v wrk >/dev/null || { echo "bench: wrk is needed (apt-get install wrk)"; exit 1; }
bin="$(mktemp -d)/estimate-server"
go build -o "$bin" ./bench/estimate-server

lua="$(mktemp)"
cat >"$lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("BODY")
LUA

run() { # mode body label
	"$bin" -mode "$1" -addr 127.0.0.1:18181 &
	pid=$!
	for _ in $(seq 50); do curl -s -o /dev/null 127.0.0.1:18181/healthz && break; sleep 0.1; done
	BODY="$2" wrk -t1 -c16 -d"${secs}s" -s "$lua" http://127.0.0.1:18181/v1/estimate | awk -v l="$3" '/Requests\/sec/ {printf "%-46s %10.0f req/s\n", l, $2; print $2 > "/tmp/bench-rps-" l}'
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

tokens='{"model": "llama-3.1-8b", "input_tokens": 1500, "output_tokens": 300}'
prompt='{"model": "llama-3.1-8b", "prompt": "Summarise the ticket below.   \n\n\n\nCustomer: my invoice is wrong  \n\n\n", "output_tokens": 300}'
run bare "$tokens" bare
run real "$tokens" tokens
run real "$prompt" prompt
bare=$(cat /tmp/bench-rps-bare)
for l in tokens prompt; do
	awk -v r="$(cat /tmp/bench-rps-$l)" -v b="$bare" -v l="$l" 'BEGIN {printf "estimate (%s) / bare = %.0f%%\n", l, 100*r/b}'
done
