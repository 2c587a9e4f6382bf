#!/usr/bin/env bash
# Start-up of the app as a launcher starts it: time from exec to its window
# mapping (polled every 10 ms with xdotool), to the UI painted (the sidebar's
# colour #2B3A55 on screen, polled with ImageMagick, ~30 ms a look) and, 3 s
# later, the PSS of the app and its WebKit processes. Every run gets a fresh HOME (a first start: empty
# database, migrations) on a private Xvfb and D-Bus session.
#   packaging/coldstart.sh [APP] [RUNS] [--drop-caches]
# --drop-caches empties the page cache before each run (root; slows whatever
# else runs on the machine for a moment): a cold start from disk.
set -euo pipefail
APP="${1:-/usr/bin/skald-app}"
RUNS="${2:-5}"
DROP="${3:-}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -x "$APP" ] || { echo "no executable at $APP" >&2; exit 1; }
WORK="$(mktemp -d)"
XVFB_PID=""
APP_PID=""
cleanup() {
  [ -n "$APP_PID" ] && kill -- "-$APP_PID" 2>/dev/null || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$WORK/display" >/dev/null 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 50); do
  [ -s "$WORK/display" ] && break
  sleep 0.1
done
export DISPLAY=":$(tr -d '[:space:]' < "$WORK/display")"

# PSS (kB) of every process in group $1, from smaps_rollup.
group_pss() {
  local total=0 pid pss
  for pid in $(ps -eo pid=,pgid= | awk -v g="$1" '$2 == g {print $1}'); do
    pss=$(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
    total=$((total + ${pss:-0}))
  done
  echo "$total"
}

times=()
paints=()
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/home" && mkdir -p "$WORK/home"
  if [ "$DROP" = "--drop-caches" ]; then
    sync
    echo 3 > /proc/sys/vm/drop_caches
  fi
  start=$(date +%s%N)
  (cd / && HOME="$WORK/home" exec setsid env -u SKALD_DATA_DIR -u XDG_DATA_HOME \
    dbus-run-session --config-file="$ROOT/.ci/dbus-session.conf" -- "$APP") >"$WORK/app.log" 2>&1 &
  APP_PID=$!
  ms=""
  for _ in $(seq 1 3000); do
    if xdotool search --onlyvisible --name '^Skald$' >/dev/null 2>&1; then
      ms=$((($(date +%s%N) - start) / 1000000))
      break
    fi
    sleep 0.01
  done
  [ -n "$ms" ] || { tail -n 20 "$WORK/app.log"; echo "run $run: no window within 30 s" >&2; exit 1; }
  painted=""
  for _ in $(seq 1 1000); do
    if import -window root -crop 1x1+90+400 -depth 8 txt:- 2>/dev/null | grep -q '#2B3A55'; then
      painted=$((($(date +%s%N) - start) / 1000000))
      break
    fi
  done
  sleep 3
  echo "run $run: window mapped in ${ms} ms, UI painted in ${painted:-?} ms, PSS after 3 s: $(($(group_pss "$APP_PID") / 1024)) MB"
  paints+=("${painted:-0}")
  times+=("$ms")
  kill -- "-$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
  APP_PID=""
  sleep 1
done
summary() {
  local sorted
  sorted=$(printf '%s\n' "$@" | sort -n)
  echo "median $(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms, min $(echo "$sorted" | head -n 1) ms, max $(echo "$sorted" | tail -n 1) ms"
}
echo "window mapped: $(summary "${times[@]}"); UI painted: $(summary "${paints[@]}"); $RUNS runs of $APP"
