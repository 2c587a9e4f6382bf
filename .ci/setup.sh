#!/usr/bin/env bash
# Installs everything Skald needs to build, run and test on Debian 12:
# apt packages, Rust tools, npm packages. Safe to run again (it skips what
# is already there).
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

APT_PACKAGES=(
  # Tauri build
  libwebkit2gtk-4.1-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev librsvg2-dev
  libayatana-appindicator3-dev libgtk-3-dev libxdo-dev libssl-dev build-essential pkg-config file
  # the real app under a virtual display, driven through WebDriver
  xvfb imagemagick webkit2gtk-driver xdotool
  # links open in the system browser through xdg-open (E2E records them)
  xdg-utils
  # a private D-Bus session for E2E (single instance, notifications, tray)
  dbus-daemon dbus-bin
  # E2E marks a session as background work in the app's database (sqlite3)
  sqlite3
  # benchmarks and tool tests
  ripgrep universal-ctags curl ca-certificates
  # the viewer: LaTeX to PDF (the smallest TeX Live that compiles ordinary
  # articles: latex-recommended brings xcolor, booktabs, listings, hyperref),
  # and pip to fetch libpdfium below
  latexmk texlive-latex-base texlive-latex-recommended python3-pip
)

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  step "apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  step "rust: installing rustup (toolchain pinned by rust-toolchain.toml)"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
fi
# Node.js 20+: Debian 12's own is 18, so when the machine has no recent one,
# the official build comes from the npm registry (package node-linux-<arch>)
# into $SKALD_NODE_HOME, which env.sh puts first on PATH.
node_ok() {
  command -v node >/dev/null && node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 20 ? 1 : 0)'
}
if ! node_ok || [ -n "${SKALD_FORCE_NODE_INSTALL:-}" ]; then
  if ! command -v npm >/dev/null; then
    step "apt: nodejs npm (only to fetch Node.js $NODE_VERSION from the npm registry)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
  fi
  case "$(uname -m)" in
    x86_64) node_arch=x64 ;;
    aarch64) node_arch=arm64 ;;
    *) echo "no Node.js $NODE_VERSION build for $(uname -m); install Node.js 20+ and re-run" >&2; exit 1 ;;
  esac
  step "Node.js $NODE_VERSION (node-linux-$node_arch from the npm registry)"
  npm install --no-audit --no-fund --prefix "$SKALD_NODE_HOME" "node-linux-$node_arch@$NODE_VERSION"
  use_cached_node
  node_ok || { echo "Node.js $NODE_VERSION did not install" >&2; exit 1; }
fi
if ! command -v cargo-nextest >/dev/null; then
  step "cargo-nextest"
  cargo install cargo-nextest --locked
fi
if ! command -v tauri-driver >/dev/null; then
  step "tauri-driver (pinned to 2.x)"
  cargo install tauri-driver@2.1.0 --locked
fi

# libpdfium for the viewer's PDF pages: the build inside the pypdfium2 wheel
# (needs only libc). skald-viewer finds it here, or wherever
# SKALD_PDFIUM_LIB points.
PDFIUM_WHEEL_VERSION="5.15.2"
SKALD_PDFIUM_HOME="${SKALD_PDFIUM_HOME:-$HOME/.cache/skald/pdfium}"
if [ ! -f "$SKALD_PDFIUM_HOME/pypdfium2_raw/libpdfium.so" ]; then
  step "pdfium: libpdfium from the pypdfium2 $PDFIUM_WHEEL_VERSION wheel"
  wheel_dir="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$wheel_dir" "pypdfium2==$PDFIUM_WHEEL_VERSION"
  mkdir -p "$SKALD_PDFIUM_HOME"
  python3 -m zipfile -e "$wheel_dir"/pypdfium2-*.whl "$SKALD_PDFIUM_HOME"
  rm -rf "$wheel_dir"
  [ -f "$SKALD_PDFIUM_HOME/pypdfium2_raw/libpdfium.so" ] || { echo "libpdfium.so missing from the wheel" >&2; exit 1; }
fi

step "npm: ui dependencies"
cd "$ROOT/ui"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# The real MCP servers skald-mcp's tests run against (stdio and streamable
# HTTP), pinned, in a cache outside the clone; the tests fail without them.
MCP_TEST_SERVERS=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
)
mcp_stamp="$SKALD_MCP_SERVERS/.installed-$(printf '%s ' "${MCP_TEST_SERVERS[@]}" | cksum | cut -d' ' -f1)"
if [ ! -f "$mcp_stamp" ]; then
  step "npm: MCP test servers into $SKALD_MCP_SERVERS"
  mkdir -p "$SKALD_MCP_SERVERS"
  npm install --no-audit --no-fund --prefix "$SKALD_MCP_SERVERS" "${MCP_TEST_SERVERS[@]}"
  touch "$mcp_stamp"
fi
