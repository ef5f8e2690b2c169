# Sundial: the two commands of README.md.
#   make run   installs what is missing, builds, serves the demo at http://127.0.0.1:3000
#   make test  installs what is missing, runs every test (the browser test included)
SHELL := /bin/bash
export PATH := $(CURDIR)/.tools/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export LEPTOS_SITE_ROOT := target/site
export LEPTOS_OUTPUT_NAME := sundial

.PHONY: run test setup setup-build build unit engine-wasm lint e2e wasm-size bench load load-fleet load-scale load-slow fuzz clean-demo

# Everything the tests need (the browser, the databases, the test packages).
setup:
	@.ci/install-deps

# Only what building and serving need: `make run` installs no test tool.
setup-build:
	@.ci/install-deps build

build: setup-build
	.ci/build-release

run: build
	target/release/sundial serve

unit: setup engine-wasm
	cargo test --workspace --all-targets --locked

# The engine and the model alone for the browser's target: proof they stay pure (no I/O, no server crates).
engine-wasm: setup
	cargo build -p sundial-engine -p sundial-model --lib --target wasm32-unknown-unknown --locked --no-default-features

e2e: setup build
	cd end2end && SUNDIAL_BIN=../target/release/sundial node --test

# The browser's budget: all the WASM a page loads (one bundle), gzipped, at most 300,000 bytes.
wasm-size: build
	@raw=$$(stat -c %s target/site/pkg/sundial.wasm); gz=$$(gzip -9c target/site/pkg/sundial.wasm | wc -c); \
	echo "WASM: $$raw bytes, $$gz gzipped (budget 300000)"; test $$gz -le 300000

# Formatting and lints: the server build, the browser build (islands), the engine (which may
# not read the clock: app/engine/clippy.toml).
lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
	cargo clippy -p app --lib --target wasm32-unknown-unknown --no-default-features --features hydrate --locked -- -D warnings

test: lint unit e2e wasm-size

bench: setup
	cargo bench -p sundial-engine --bench engine
	cargo bench -p sundial-engine --bench fleet

# Bad input, fuzzed: every harness of both test binaries at 100,000 inputs each, release build
# with overflow checks (an overflow panics, as in debug); each prints its count. `cargo test`
# runs the same harnesses with 256 inputs.
fuzz:
	CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true SUNDIAL_FUZZ_CASES=100000 cargo test --release --locked -p sundial-engine --test integration fuzz -- --nocapture
	CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true SUNDIAL_FUZZ_CASES=100000 cargo test --release --locked -p server --test integration fuzz -- --nocapture

# Pages under load on loopback: 50 copies of the demo instance (2,050 jobs), 50 clients (wrk),
# p50/p95/p99 and errors per page. Figures, not a test.
load: build
	end2end/load/run.sh 50 50 15

# Slow clients: 300 readers of /log.csv?days=30 that never read, from another address than the
# one measuring; the server's memory and /triage's p50/p99 meanwhile; then 300 connections that
# never finish their request's head, and how many are still open 10 s later (SPREAD: how many
# addresses the readers come from). The readers ask as curl does (no gzip: the costly case, a
# gzipped month fits in loopback's socket buffers), then as a browser. Figures, not a test.
load-slow: build
	end2end/load/slow_readers.py --plain --spread $${SPREAD:-1}
	end2end/load/slow_readers.py --heads 0 --spread $${SPREAD:-1}

# A live fleet of 200 SQL Agent instances x 20 jobs, each read every minute, under 50 and 200
# clients: latency per page and the reads the sources got meanwhile.
load-fleet: build
	end2end/load/fleet.sh 200 20 15 2

# Collection at fleet scale: 1,000 live SQL Agent instances x 20 jobs, each its own file with a
# run appended every minute, read every minute on the real clock: time to every first read,
# memory, CPU per poll cycle, latency under 50 clients (INSTANCES, JOBS, POLL, CYCLES, SECONDS).
load-scale: build
	end2end/load/fleet_scale.sh $${INSTANCES:-1000} $${JOBS:-20}
