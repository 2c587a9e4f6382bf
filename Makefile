# Conveniences over .ci/ scripts and cargo. The two commands a fresh machine
# needs are `bash .ci/app` and `bash .ci/test` (see README.md).
export CARGO_TARGET_DIR ?= $(HOME)/.cache/skald-target
FEATURES := skald/custom-protocol

.PHONY: app test ui dev bindings docs fmt lint bench

app:
	bash .ci/app

test:
	bash .ci/test

ui:
	cd ui && npm run build

# Hot-reloading development: Vite dev server + the app pointed at it.
dev:
	ui/node_modules/.bin/tauri dev

# Regenerate ui/src/bindings.ts from the Rust protocol types.
bindings:
	SKALD_BLESS=1 cargo nextest run -p skald-protocol bindings

# Regenerate the catalogue table in docs/tools.md from `skald tools --markdown`.
docs:
	SKALD_BLESS=1 cargo nextest run -p skald-cli docs_tools_md

fmt:
	cargo fmt --all

lint:
	cargo clippy --workspace --all-targets --features $(FEATURES) -- -D warnings

bench:
	cargo run --release -p skald-tools --bin grep-bench
	cargo run --release -p skald-tools --bin exec-stop-bench -- 50
	cargo run --release -p skald-session --bin session-bench
	cargo run --release -p skald-codeintel --bin outline-bench -- $(HOME)/.cargo/registry/src
