#!/usr/bin/env bash
# Load benchmark of POST /v1/estimate on the real service against a bare gin
# handler that answers a constant, measured by the same client (wrk) in
# alternating rounds, so that a slow moment of the machine hits both.
#
# The service is `flopledger serve` as deployed: embedded PostgreSQL, every
# middleware (request id, JSON access log, recovery, metrics, security
# headers), a read-scoped API key issued by the service, and two price plans,
# so that every estimate is also priced. Only the per-key rate limit is off.
# A last column measures the service's GET /healthz, a constant answer
# behind the same middleware (all but the key check): what the stack alone
# costs against the bare engine.
#
# Usage: bench/estimate.sh [seconds per run, default 8] [rounds, default 3]
# Needs wrk (apt-get install wrk). Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-8}"; rounds="${2:-3}"
command -v wrk >/dev/null || { echo "bench: wrk is needed (apt-get install wrk)"; exit 1; }
bin="$(mktemp -d)"; go build -o "$bin/flopledger" ./cmd/flopledger; go build -o "$bin/bare" ./bench/estimate-server
data="$(mktemp -d /tmp/flopledger-bench.XXXXXX)"; chmod 711 "$data"
real=127.0.0.1:18181; bare=127.0.0.1:18183
admin="flk_bench-admin-$RANDOM$RANDOM$RANDOM"
FLOPLEDGER_ADMIN_KEY="$admin" FLOPLEDGER_RATE_LIMIT=0 FLOPLEDGER_DATA_DIR="$data" FLOPLEDGER_ADDR="$real" \
	"$bin/flopledger" serve >"$data/serve.log" 2>&1 &
spid=$!
"$bin/bare" -addr "$bare" &
bpid=$!
trap 'kill $spid $bpid 2>/dev/null; wait $spid $bpid 2>/dev/null; rm -rf "$data" "$bin"' EXIT
for _ in $(seq 600); do curl -fs "http://$real/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

api() { curl -fsS -H "Authorization: Bearer $admin" --json "$2" "http://$real$1"; }
key=$(api /v1/keys '{"name": "bench", "scopes": ["read"]}' | sed -E 's/.*"key":"([^"]+)".*/\1/')
api /v1/plans '{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"per_request": "0", "input_per_mtok": "3", "cached_input_per_mtok": "0.3", "output_per_mtok": "15"}}}' >/dev/null
api /v1/plans '{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00002"}' >/dev/null

tokens='{"model": "llama-3.1-8b", "input_tokens": 1500, "output_tokens": 300}'
prompt='{"model": "llama-3.1-8b", "prompt": "Summarise the ticket below.   \n\n\n\nCustomer: my invoice is wrong  \n\n\n", "output_tokens": 300}'
lua="$data/post.lua"
cat >"$lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
wrk.body = os.getenv("BODY")
LUA
get="$data/get.lua"
echo 'wrk.method = "GET"' >"$get"
# Warm up: the first prompt loads the tokenizer's vocabulary.
KEY="$key" BODY="$prompt" wrk -t1 -c4 -d1s -s "$lua" "http://$real/v1/estimate" >/dev/null

# run PID ADDR BODY [PATH SCRIPT]: prints requests/s and the server's CPU
# µs per request; fails on any answer but 200.
run() {
	local c0 c1 out
	c0=$(awk '{print $14 + $15}' "/proc/$1/stat")
	out=$(KEY="$key" BODY="$3" wrk -t1 -c16 -d"${secs}s" -s "${5:-$lua}" "http://$2${4:-/v1/estimate}")
	c1=$(awk '{print $14 + $15}' "/proc/$1/stat")
	if grep -q "Non-2xx" <<<"$out"; then echo "bench: errors from $2: $out" >&2; exit 1; fi
	awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" '/Requests\/sec/ {r = $2} /requests in/ {n = $1} END {printf "%.0f %.1f", r, c * 1e6 / hz / n}' <<<"$out"
}
printf '%-6s %22s %30s %30s %30s\n' round "bare: req/s (µs/req)" "tokens: req/s (µs/req), %" "prompt: req/s (µs/req), %" "healthz: req/s (µs/req), %"
ratios_t=(); ratios_p=(); ratios_h=()
for r in $(seq "$rounds"); do
	read -r b bc <<<"$(run $bpid $bare "$tokens")"
	read -r t tc <<<"$(run $spid $real "$tokens")"
	read -r p pc <<<"$(run $spid $real "$prompt")"
	read -r h hc <<<"$(run $spid $real "" /healthz "$get")"
	pct() { awk -v a="$1" -v b="$b" 'BEGIN {printf "%.0f", 100 * a / b}'; }
	rt=$(pct "$t"); rp=$(pct "$p"); rh=$(pct "$h")
	ratios_t+=("$rt"); ratios_p+=("$rp"); ratios_h+=("$rh")
	printf '%-6s %13s (%5s) %16s (%5s), %3s%% %16s (%5s), %3s%% %16s (%5s), %3s%%\n' "$r" "$b" "$bc" "$t" "$tc" "$rt" "$p" "$pc" "$rp" "$h" "$hc" "$rh"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "median: estimate (tokens) / bare = $(median "${ratios_t[@]}")%, estimate (prompt) / bare = $(median "${ratios_p[@]}")%"
echo "        the service's constant GET /healthz (every middleware but the key check) / bare = $(median "${ratios_h[@]}")%"
