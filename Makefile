# flopledger — run `make help` for the targets.
GO      ?= go
PKGS    ?= ./...
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: help run build test test-short bench lint fmt db-up migrate

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-10s %s\n", $$1, $$2}'

run: build ## serve on http://127.0.0.1:8080 with the embedded PostgreSQL and demo data (no DATABASE_URL needed)
	./bin/flopledger serve --demo

build: ## build bin/flopledger
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/flopledger ./cmd/flopledger

test: ## run every test (real PostgreSQL; TEST_DATABASE_URL or an embedded cluster), with the race detector
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

test-short: ## run every test without the race detector (faster)
	$(GO) test -count=1 $(PKGS)

bench: ## run the Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint: ## gofmt and go vet
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt wants changes in:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

fmt: ## format the code
	gofmt -w .

db-up: ## start PostgreSQL in Docker (docker compose) for development
	docker compose up -d postgres

migrate: ## apply pending migrations (to DATABASE_URL, or the embedded PostgreSQL)
	$(GO) run ./cmd/flopledger migrate
