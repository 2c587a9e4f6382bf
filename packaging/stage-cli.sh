#!/usr/bin/env bash
# Tauri's beforeBundleCommand: builds the `skald` CLI with the profile the app
# was built with and stages it where tauri.conf.json's deb/rpm `files` expect
# it (packaging/stage/skald), since the bundler only picks up the app
# package's own binaries and cannot name a path under $CARGO_TARGET_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skald-target}"
# The Tauri CLI says which profile it built: TAURI_ENV_DEBUG=true for --debug.
if [ "${TAURI_ENV_DEBUG:-false}" = "true" ]; then
  profile=debug
  cargo build -p skald-cli
else
  profile=release
  cargo build --release -p skald-cli
fi
mkdir -p packaging/stage
cp "$CARGO_TARGET_DIR/$profile/skald" packaging/stage/skald
echo "staged $CARGO_TARGET_DIR/$profile/skald as packaging/stage/skald"
# libpdfium for the viewer's PDFs (from the pypdfium2 wheel .ci/setup.sh
# unpacked); the app looks for it in /usr/lib/skald when installed.
PDFIUM="${SKALD_PDFIUM_HOME:-$HOME/.cache/skald/pdfium}/pypdfium2_raw/libpdfium.so"
[ -f "$PDFIUM" ] || { echo "no libpdfium at $PDFIUM: run .ci/setup.sh first" >&2; exit 1; }
cp "$PDFIUM" packaging/stage/libpdfium.so
echo "staged $PDFIUM as packaging/stage/libpdfium.so"
