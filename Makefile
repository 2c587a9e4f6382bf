# Conveniences over .ci/ scripts and cargo. The two commands a fresh machine
# needs are `bash .ci/app` and `bash .ci/test` (see README.md).
export CARGO_TARGET_DIR ?= $(HOME)/.cache/skald-target
FEATURES := skald/custom-protocol

.PHONY: app test ui dev package bindings docs fmt lint bench

app:
	bash .ci/app

test:
	bash .ci/test

ui:
	cd ui && npm run build

# Hot-reloading development: Vite dev server + the app pointed at it. The
# Tauri CLI runs tauri.conf.json's beforeDevCommand (Vite, in ui/) and builds
# the app without custom-protocol, so the webview loads devUrl; UI edits
# reload in place, Rust edits rebuild and restart the app. Headless: see
# AGENTS.md.
dev:
	ui/node_modules/.bin/tauri dev

# Release bundles that build offline: .deb and .rpm under
# $(CARGO_TARGET_DIR)/release/bundle/, each with /usr/bin/skald-app,
# /usr/bin/skald (staged by packaging/stage-cli.sh) and the agents. The
# appimage target downloads its tools at build time, so it is not built.
# `bash .ci/package` builds the debug .deb and tests it installed.
package:
	ui/node_modules/.bin/tauri build --ci --bundles deb,rpm --features custom-protocol
	@ls -l $(CARGO_TARGET_DIR)/release/bundle/deb/*.deb $(CARGO_TARGET_DIR)/release/bundle/rpm/*.rpm

# Regenerate ui/src/bindings.ts (the Rust protocol types) and ui/src/commands.ts
# (typed wrappers for every command in generate_handler! in src-tauri/src/lib.rs).
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
	cargo run --release -p skald-mcp --bin mcp-call-bench -- 1000
	cargo run --release -p skald-session --bin mcp-start-bench -- 5
	cargo run --release -p skald-codeintel --bin outline-bench -- $(HOME)/.cargo/registry/src
	cargo run --release -p skald-viewer --bin viewer-bench
