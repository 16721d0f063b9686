#!/usr/bin/env bash
# Comparison benchmark: GET /v1/comparison over N records (default 10
# million) spread over 90 days and 6 workloads. The records are loaded with
# psql \copy (their FLOPs computed by the estimator) and rolled up with the
# same sums the ingest path keeps; then the comparison is timed, several
# times, with curl. Loopback only.
# Usage: bench/comparison.sh [records, default 10000000] [workloads, default 6]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000000}"; workloads="${2:-6}"
bin="$(mktemp -d)"; go build -o "$bin/flopledger" ./cmd/flopledger; go build -o "$bin/gen-usage" ./bench/gen-usage
data="$(mktemp -d /tmp/flopledger-bench.XXXXXX)"; chmod 711 "$data"
addr=127.0.0.1:18283
key=flk_bench-admin-key-0123456789; FLOPLEDGER_ADMIN_KEY="$key" FLOPLEDGER_RATE_LIMIT=0 FLOPLEDGER_DATA_DIR="$data" FLOPLEDGER_ADDR="$addr" FLOPLEDGER_LOG_LEVEL=warn "$bin/flopledger" serve >"$data/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data" "$bin"' EXIT
for _ in $(seq 600); do curl -fs "http://$addr/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
psql="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql"
sql() { "$psql" -X -q -h "$data/pg" -p 54329 -U flopledger -d flopledger "$@"; }
for m in 08 09 10 11; do
	next=$(date -u -d "2026-$m-01 +1 month" +%Y-%m-%d)
	sql -c "CREATE TABLE IF NOT EXISTS usage_records_2026_$m PARTITION OF usage_records FOR VALUES FROM ('2026-$m-01') TO ('$next')"
done
echo "generating and loading $n records…"
cols="id, occurred_at, workload, model, input_tokens, cached_input_tokens, output_tokens, requests, latency_ms, ttft_ms, tags, bloat_tokens, prefill_flops, decode_flops, model_version"
"$bin/gen-usage" -n "$n" -days 90 -start 2026-08-01 -workloads "$workloads" -csv /dev/stdout |
	sql -c "\\copy usage_records ($cols) FROM STDIN CSV"
sql -c "INSERT INTO usage_daily (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens, output_tokens,
	prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens, latency_records, latency_ms_sum)
	SELECT workload, (occurred_at AT TIME ZONE 'UTC')::date, model, jsonb_build_object('team', tags->>'team'), count(*), sum(requests),
	sum(input_tokens), sum(cached_input_tokens), sum(output_tokens), sum(prefill_flops), sum(decode_flops), 0, 0,
	count(latency_ms), coalesce(sum(latency_ms), 0) FROM usage_records GROUP BY 1, 2, 3, 4"
sql -t -c "SELECT count(*) || ' records, ' || (SELECT count(*) FROM usage_daily) || ' rollup rows' FROM usage_records"
curl -fs -H "Authorization: Bearer $key" --json '{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"input_per_mtok": "3", "cached_input_per_mtok": "0.3", "output_per_mtok": "15"}}}' "http://$addr/v1/plans" >/dev/null
curl -fs -H "Authorization: Bearer $key" --json '{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.0001"}' "http://$addr/v1/plans" >/dev/null
url="http://$addr/v1/comparison?from=2026-08-01&to=2026-11-01"
curl -fs -H "Authorization: Bearer $key" "$url" >/dev/null # warm
for i in 1 2 3 4 5; do
	curl -fs -H "Authorization: Bearer $key" -o /dev/null -w "comparison over 90 days: %{time_total}s\n" "$url"
done
curl -fs -H "Authorization: Bearer $key" "$url" | head -c 300 || true; echo
for i in 1 2 3; do
	curl -fs -H "Authorization: Bearer $key" --json '{"month": "2026-10"}' -o /dev/null -w "monthly report of 2026-10 made and stored: %{time_total}s\n" "http://$addr/v1/reports"
done
