#!/usr/bin/env bash
# Container smoke test (manual, not run in CI): builds the image with podman,
# starts it with a token, waits for /healthz, then talks MCP to it from the
# host with curl: initialize -> notifications/initialized -> tools/list ->
# tools/call recipes__search. Checks that a request without the token is
# refused, that the image's HEALTHCHECK passes, and that `podman stop`
# (SIGTERM to Node as PID 1) exits 0. Removes the container on exit.
#
# Needs root (podman + the local base image) and ../shared/tools/container-base.sh,
# which builds a local node:20-bookworm-slim stand-in when no registry is reachable.
#
#   scripts/container-smoke.sh            # port 18765 on the host network
#   PORT=8765 scripts/container-smoke.sh
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED_DIR:-$REPO/../shared}
IMAGE=${IMAGE:-recipe-server}
PORT=${PORT:-18765}
TOKEN=${RECIPE_SERVER_TOKEN:-smoke-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d)
CID=""

cleanup() {
  if [ -n "$CID" ]; then podman rm -f "$CID" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

# Prints the JSON-RPC message of a streamable-HTTP response body: either plain
# JSON or an SSE stream whose `data:` lines carry it.
jsonrpc_body() {
  if grep -q '^data:' "$1"; then sed -n 's/^data: \{0,1\}//p' "$1"; else cat "$1"; fi
}

pretty() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n").filter(Boolean)){try{console.log(JSON.stringify(JSON.parse(l),null,2))}catch{console.log(l)}}})'; }

# mcp_post NAME JSON [extra curl args...]: POST to $MCP_PATH (default /mcp),
# keep headers and body.
mcp_post() {
  local name=$1 body=$2; shift 2
  curl -sS -o "$WORK/$name.body" -D "$WORK/$name.headers" -w '%{http_code}' \
    -X POST "$BASE${MCP_PATH:-/mcp}" \
    -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H "Authorization: Bearer $TOKEN" \
    "$@" --data "$body"
}

step "base image (container-base.sh)"
if [ -x "$SHARED/tools/container-base.sh" ] || [ -f "$SHARED/tools/container-base.sh" ]; then
  bash "$SHARED/tools/container-base.sh"
else
  echo "no $SHARED/tools/container-base.sh: expecting node:20-bookworm-slim to be present already"
fi
export CONTAINERS_CONF=${CONTAINERS_CONF:-/tmp/recipe-server-container/containers.conf}

step "podman build"
# --format docker keeps the HEALTHCHECK (the OCI format has no such field).
(cd "$REPO" && podman build --pull=never --format docker --network host -t "$IMAGE" .)

step "run without a token (must refuse the 0.0.0.0 bind)"
set +e
timeout 60 podman run --rm --network host -e RECIPE_SERVER_PORT="$PORT" "$IMAGE" >"$WORK/notoken.out" 2>&1
rc=$?
set -e
echo "exit code $rc: $(tail -n 3 "$WORK/notoken.out")"
[ "$rc" -ne 0 ] || { echo "FAIL: the container served without a token"; exit 1; }

step "podman run"
CID=$(podman run -d --network host \
  -e RECIPE_SERVER_TOKEN="$TOKEN" -e RECIPE_SERVER_PORT="$PORT" -e LOG_LEVEL=info \
  "$IMAGE")
echo "container ${CID:0:12} on $BASE"

step "wait for /healthz"
for i in $(seq 1 60); do
  if curl -fsS "$BASE/healthz" >"$WORK/healthz" 2>/dev/null; then
    echo "healthy after ${i}x0.5 s: $(cat "$WORK/healthz")"; break
  fi
  if [ "$(podman inspect -f '{{.State.Running}}' "$CID")" != "true" ]; then
    echo "FAIL: container exited"; podman logs "$CID" | tail -n 30; exit 1
  fi
  sleep 0.5
  [ "$i" -lt 60 ] || { echo "FAIL: /healthz never answered"; podman logs "$CID" | tail -n 30; exit 1; }
done
# ready = catalog loaded; then give the semantic index (if on) time to warm up
for i in $(seq 1 240); do
  code=$(curl -sS -o "$WORK/status" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/status" || true)
  if [ "$code" = 200 ] && grep -q '"ready":true' "$WORK/status" && ! grep -q '"semantic":"warming"' "$WORK/status"; then break; fi
  sleep 0.5
done
echo "/status $code: $(cat "$WORK/status")"

step "POST /mcp without the token (expect 401)"
code=$(curl -sS -o "$WORK/unauth" -w '%{http_code}' -X POST "$BASE/mcp" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  --data '{"jsonrpc":"2.0","id":0,"method":"ping"}')
echo "$code $(cat "$WORK/unauth")"
[ "$code" = 401 ] || { echo "FAIL: expected 401"; exit 1; }

step "initialize"
code=$(mcp_post init '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"container-smoke","version":"1.0.0"}}}')
echo "HTTP $code"
jsonrpc_body "$WORK/init.body" | pretty
[ "$code" = 200 ] || { echo "FAIL: initialize"; exit 1; }
SESSION=$(tr -d '\r' <"$WORK/init.headers" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
PROTO=$(jsonrpc_body "$WORK/init.body" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s.trim().split("\n")[0]).result.protocolVersion))')
echo "session: ${SESSION:-<stateless>}  protocol: $PROTO"
SESSION_ARGS=(-H "MCP-Protocol-Version: $PROTO")
[ -z "$SESSION" ] || SESSION_ARGS+=(-H "Mcp-Session-Id: $SESSION")

code=$(mcp_post initialized '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${SESSION_ARGS[@]}")
echo "notifications/initialized: HTTP $code"

step "tools/list"
code=$(mcp_post list '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "${SESSION_ARGS[@]}")
echo "HTTP $code"
jsonrpc_body "$WORK/list.body" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s.trim().split("\n")[0]);for(const t of m.result.tools)console.log("-",t.name+":",(t.description||"").split("\n")[0].slice(0,100))})'
[ "$code" = 200 ] || { echo "FAIL: tools/list"; exit 1; }

step "tools/call recipes__search \"make the mesh smoother\""
code=$(mcp_post search '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recipes__search","arguments":{"query":"make the mesh smoother","limit":3}}}' "${SESSION_ARGS[@]}")
echo "HTTP $code"
jsonrpc_body "$WORK/search.body" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s.trim().split("\n")[0]);const r=m.result;console.log("isError:",r.isError===true);try{console.log(JSON.stringify(JSON.parse(r.content[0].text),null,2))}catch{console.log(r.content[0].text)}})'

step "per-DCC endpoint /mcp/houdini: recipes__search \"blow up the barrel\""
export MCP_PATH=/mcp/houdini
code=$(mcp_post hinit '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"container-smoke","version":"1.0.0"}}}')
HSESSION=$(tr -d '\r' <"$WORK/hinit.headers" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
HARGS=(-H "MCP-Protocol-Version: $PROTO")
[ -z "$HSESSION" ] || HARGS+=(-H "Mcp-Session-Id: $HSESSION")
mcp_post hinitialized '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${HARGS[@]}" >/dev/null
code=$(mcp_post hsearch '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recipes__search","arguments":{"query":"blow up the barrel","limit":3}}}' "${HARGS[@]}")
echo "initialize + search: HTTP $code"
jsonrpc_body "$WORK/hsearch.body" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(JSON.parse(s.trim().split("\n")[0]).result.content[0].text).context;console.log("mode:",c.mode);for(const r of c.recipes)console.log("-",r.recipeId,"("+r.dcc+")",r.score)})'
[ "$code" = 200 ] || { echo "FAIL: /mcp/houdini"; exit 1; }
unset MCP_PATH

step "podman healthcheck run"
if podman healthcheck run "$CID"; then echo "healthcheck: healthy"; else echo "FAIL: healthcheck"; exit 1; fi

step "podman stop (SIGTERM to Node as PID 1)"
podman stop -t 10 "$CID" >/dev/null
echo "exit code after stop: $(podman inspect -f '{{.State.ExitCode}}' "$CID")"
podman logs "$CID" 2>&1 | tail -n 5
[ "$(podman inspect -f '{{.State.ExitCode}}' "$CID")" = 0 ] || { echo "FAIL: non-zero exit after SIGTERM"; exit 1; }

step "OK"
