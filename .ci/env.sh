# Shared settings for the .ci scripts (sourced, not run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# One target dir outside the clone, so every later run (and every fresh
# clone on this machine) builds incrementally.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skald-target}"
export PATH="$HOME/.cargo/bin:$PATH"
# Node.js from the npm registry when the machine's is too old (setup.sh).
export NODE_VERSION="20.20.2"
export SKALD_NODE_HOME="${SKALD_NODE_HOME:-$HOME/.cache/skald-node}"
# The MCP reference servers the skald-mcp tests run (setup.sh installs them).
export SKALD_MCP_SERVERS="${SKALD_MCP_SERVERS:-$HOME/.cache/skald-mcp-servers}"
use_cached_node() {
  local bin
  for bin in "$SKALD_NODE_HOME"/node_modules/node-linux-*/bin; do
    if [ -x "$bin/node" ]; then
      case ":$PATH:" in *":$bin:"*) ;; *) export PATH="$bin:$PATH" ;; esac
    fi
  done
}
use_cached_node
# The app package always builds with ui/dist embedded: one feature set for
# clippy, tests and E2E, so cargo never builds Tauri twice.
export APP_FEATURES="skald/custom-protocol"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
step() { printf '\n==> %s\n' "$*"; }
