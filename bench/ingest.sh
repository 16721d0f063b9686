#!/usr/bin/env bash
# Ingest benchmark: NDJSON over HTTP (POST /v1/usage: validation, FLOPs
# estimation, idempotency keys and daily rollups included) against
# `psql \copy` of the same rows, with their FLOPs precomputed, into the same
# table of the same database. Loopback only; bounded by the record count.
# Usage: bench/ingest.sh [records, default 200000] [batch, default 5000] [workers, default 2] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200000}"; batch="${2:-5000}"; workers="${3:-2}"; rounds="${4:-3}"
bin="$(mktemp -d)"; go build -o "$bin/flopledger" ./cmd/flopledger
go build -o "$bin/gen-usage" ./bench/gen-usage; go build -o "$bin/ingest-client" ./bench/ingest-client
data="$(mktemp -d /tmp/flopledger-bench.XXXXXX)"; chmod 711 "$data"
addr=127.0.0.1:18282
key=flk_bench-admin-key-0123456789; FLOPLEDGER_ADMIN_KEY="$key" FLOPLEDGER_RATE_LIMIT=0 FLOPLEDGER_DATA_DIR="$data" FLOPLEDGER_ADDR="$addr" FLOPLEDGER_LOG_LEVEL=warn "$bin/flopledger" serve >"$data/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data" "$bin"' EXIT
for _ in $(seq 600); do curl -fs "http://$addr/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
"$bin/gen-usage" -n "$n" -ndjson "$data/usage.ndjson" -csv "$data/usage.csv"
psql="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql"
sql() { "$psql" -X -q -h "$data/pg" -p 54329 -U flopledger -d flopledger "$@"; }
sql -c "CREATE TABLE IF NOT EXISTS usage_records_2026_10 PARTITION OF usage_records FOR VALUES FROM ('2026-10-01') TO ('2026-11-01')"
cols="id, occurred_at, workload, model, input_tokens, cached_input_tokens, output_tokens, requests, latency_ms, ttft_ms, tags, bloat_tokens, prefill_flops, decode_flops, model_version"
# Rounds alternate the two loads into the same emptied tables; each load
# starts after a CHECKPOINT, so that neither writes the other's dirty pages.
fresh() { sql -c "TRUNCATE usage_records, usage_ids, usage_daily, usage_latency_monthly, usage_prompt_monthly" -c "CHECKPOINT"; }
copies=(); https=()
for r in $(seq "$rounds"); do
	fresh
	start=$(date +%s.%N)
	sql -c "\\copy usage_records ($cols) FROM '$data/usage.csv' CSV"
	end=$(date +%s.%N)
	copy_rate=$(echo "$n / ($end - $start)" | bc -l)
	fresh
	out=$("$bin/ingest-client" -key "$key" -url "http://$addr/v1/usage" -file "$data/usage.ndjson" -batch "$batch" -workers "$workers")
	http_rate=$(echo "$out" | sed -E 's/.*= ([0-9]+) records\/s.*/\1/')
	ratio=$(echo "100 * $http_rate / $copy_rate" | bc -l)
	copies+=("$(printf '%.0f' "$copy_rate")"); https+=("$http_rate")
	printf 'round %d: psql \\copy %.0f records/s, http %d records/s (batch %d, %d workers): %.0f%%\n' "$r" "$copy_rate" "$http_rate" "$batch" "$workers" "$ratio"
	sql -t -c "SELECT '  check: ' || count(*) || ' records stored, rollups hold ' || (SELECT sum(records) FROM usage_daily) FROM usage_records"
done
# The copy's rate varies more between rounds (background vacuum of the
# previous round lands in its short window), so the summary sets the median
# HTTP rate against the best copy rate: the ratio least favourable to us.
best_copy=$(printf '%s\n' "${copies[@]}" | sort -n | tail -1)
median_http=$(printf '%s\n' "${https[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
printf 'median http %d records/s / best copy %d records/s = %.0f%%\n' "$median_http" "$best_copy" "$(echo "100 * $median_http / $best_copy" | bc -l)"
