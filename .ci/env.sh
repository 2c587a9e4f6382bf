# Shared settings for the .ci scripts (sourced, not run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# One target dir outside the clone, so every later run (and every fresh
# clone on this machine) builds incrementally.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skald-target}"
export PATH="$HOME/.cargo/bin:$PATH"
# The app package always builds with ui/dist embedded: one feature set for
# clippy, tests and E2E, so cargo never builds Tauri twice.
export APP_FEATURES="skald/custom-protocol"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
step() { printf '\n==> %s\n' "$*"; }
