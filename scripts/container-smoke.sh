#!/usr/bin/env bash
# Container smoke test, run by .ci/run on every run: builds the image with
# podman (on the local Node 24 base of scripts/container-base.sh when no
# registry is reachable), then checks, from the host with curl:
#   - a start without a token refuses the 0.0.0.0 bind (non-zero exit);
#   - the container runs as Kubernetes' restricted profile runs it: uid 1000,
#     read-only root filesystem (tmpfs /tmp, a volume at /data), every
#     capability dropped, no privilege escalation;
#   - a request without the token gets 401, with it initialize -> tools/list
#     -> tools/call recipes__search answer, also at /mcp/houdini;
#   - /readyz says ready without a token, and says nothing else;
#   - --log-format pretty loads (pino-pretty ships in the image);
#   - the image's HEALTHCHECK passes and `podman stop` (SIGTERM to Node as
#     PID 1) exits 0.
# Removes its containers on exit. Needs root and podman.
#
#   scripts/container-smoke.sh            # port 18765 on the host network
#   PORT=8765 IMAGE=recipe-server:dev scripts/container-smoke.sh
#   SKIP_BUILD=1 scripts/container-smoke.sh   # test an image built already
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
IMAGE=${IMAGE:-recipe-server}
PORT=${PORT:-18765}
TOKEN=${RECIPE_SERVER_TOKEN:-smoke-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d)
CID=""
PRETTY_CID=""

cleanup() {
  for c in "$CID" "$PRETTY_CID"; do
    if [ -n "$c" ]; then podman rm -f -v "$c" >/dev/null 2>&1 || true; fi
  done
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

fail() { echo "FAIL: $*"; [ -z "$CID" ] || podman logs "$CID" 2>&1 | tail -n 30; exit 1; }

export CONTAINERS_CONF=${CONTAINERS_CONF:-/tmp/recipe-server-container/containers.conf}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  step "base image (scripts/container-base.sh)"
  bash "$REPO/scripts/container-base.sh"
  step "podman build"
  # --format docker keeps the HEALTHCHECK (the OCI format has no such field).
  (cd "$REPO" && podman build --pull=never --format docker --network host -t "$IMAGE" .)
fi
echo "image $IMAGE: $(podman image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"

# What Kubernetes' restricted profile (deploy/kubernetes.yaml) does to the container.
RESTRICTED=(--user 1000:1000 --read-only --read-only-tmpfs=true --cap-drop ALL --security-opt no-new-privileges)

step "version"
v=$(podman run --rm "${RESTRICTED[@]}" "$IMAGE" node dist/cli.js --version)
echo "recipe-server $v on $(podman run --rm "$IMAGE" node --version)"
[ "$v" = "$(node -p "require('$REPO/package.json').version")" ] || fail "--version answered '$v'"

step "run without a token (must refuse the 0.0.0.0 bind)"
set +e
timeout 60 podman run --rm --network host "${RESTRICTED[@]}" -e RECIPE_SERVER_PORT="$PORT" "$IMAGE" >"$WORK/notoken.out" 2>&1
rc=$?
set -e
echo "exit code $rc: $(tail -n 3 "$WORK/notoken.out")"
[ "$rc" -ne 0 ] || fail "the container served without a token"
grep -q "without a token" "$WORK/notoken.out" || fail "no one-line reason for refusing"

step "podman run (restricted: uid 1000, read-only root, no capabilities)"
CID=$(podman run -d --network host "${RESTRICTED[@]}" \
  -e RECIPE_SERVER_TOKEN="$TOKEN" -e RECIPE_SERVER_PORT="$PORT" -e RECIPE_SERVER_LOG_LEVEL=info \
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
# Ready = every catalog loaded; /readyz answers that to anyone, and nothing more.
for i in $(seq 1 240); do
  code=$(curl -sS -o "$WORK/readyz" -w '%{http_code}' "$BASE/readyz" || true)
  [ "$code" = 200 ] && break
  sleep 0.5
done
echo "/readyz (no token) $code: $(cat "$WORK/readyz")"
[ "$code" = 200 ] || fail "/readyz never answered 200 without a token"
# Details (semantic warm-up, store) are the operator's: /status with the token.
# Give the semantic index time to warm up so that the search below is hybrid.
for i in $(seq 1 240); do
  code=$(curl -sS -o "$WORK/status" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/status" || true)
  if [ "$code" != 200 ] || ! grep -q '"semantic":"warming"' "$WORK/status"; then break; fi
  sleep 0.5
done
echo "/status (token) $code: $(head -c 300 "$WORK/status")"
# The local embedding model loads from the image's node_modules: a search must become hybrid.
[ "$code" = 200 ] || fail "/status with the operator token answered $code"
grep -q '"semantic":"ready"' "$WORK/status" || fail "the semantic index is not ready (the embedding model did not load?)"
# The container's own paths (the private store, the skill roots, the caches) stay out of answers.
if grep -Eq '"/(data|app|skills|home|tmp|etc|usr|root)(/|")' "$WORK/readyz" "$WORK/status"; then fail "an answer names an absolute path"; fi
grep -Eq '^\{"ready":(true|false)\}$' "$WORK/readyz" || fail "/readyz says more than ready/not ready"

step "POST /mcp without the token (expect 401)"
code=$(curl -sS -o "$WORK/unauth" -w '%{http_code}' -X POST "$BASE/mcp" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  --data '{"jsonrpc":"2.0","id":0,"method":"ping"}')
echo "$code $(cat "$WORK/unauth")"
[ "$code" = 401 ] || fail "expected 401"

step "initialize"
code=$(mcp_post init '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"container-smoke","version":"1.0.0"}}}')
echo "HTTP $code"
jsonrpc_body "$WORK/init.body" | pretty
[ "$code" = 200 ] || fail "initialize"
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
[ "$code" = 200 ] || fail "tools/list"
grep -q recipes__search "$WORK/list.body" || fail "tools/list has no recipes__search"

step "tools/call recipes__search \"make the mesh smoother\""
code=$(mcp_post search '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recipes__search","arguments":{"query":"make the mesh smoother","limit":3}}}' "${SESSION_ARGS[@]}")
echo "HTTP $code"
[ "$code" = 200 ] || fail "tools/call recipes__search"
jsonrpc_body "$WORK/search.body" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s.trim().split("\n")[0]);const r=m.result;console.log("isError:",r.isError===true);let c;try{c=JSON.parse(r.content[0].text);console.log(JSON.stringify(c,null,2).split("\n").slice(0,30).join("\n"))}catch{console.log(r.content[0].text)}process.exit(r.isError!==true&&c?.context?.recipes?.length>0?0:1)})' || fail "the search found nothing"

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
[ "$code" = 200 ] || fail "/mcp/houdini"
unset MCP_PATH

step "--log-format pretty (pino-pretty in the image)"
PRETTY_PORT=$((PORT + 1))
PRETTY_CID=$(podman run -d --network host "${RESTRICTED[@]}" -e RECIPE_SERVER_TOKEN="$TOKEN" \
  -e RECIPE_SERVER_PORT="$PRETTY_PORT" -e RECIPE_SERVER_LOG_FORMAT=pretty \
  "$IMAGE" node dist/cli.js --embeddings none --skills-path /app/skills-example)
# Logs read from a file: a pipe into `grep -q` or `head` would end podman with SIGPIPE.
for i in $(seq 1 120); do
  podman logs "$PRETTY_CID" >"$WORK/pretty.log" 2>&1 || true
  if grep -q "ready:" "$WORK/pretty.log"; then break; fi
  [ "$(podman inspect -f '{{.State.Running}}' "$PRETTY_CID")" = true ] || break
  sleep 0.5
done
head -n 3 "$WORK/pretty.log"
grep -q "ready:" "$WORK/pretty.log" || fail "no pretty start-up lines"
if grep -q '^{"level"' "$WORK/pretty.log"; then fail "pretty format wrote JSON lines"; fi
podman stop -t 10 "$PRETTY_CID" >/dev/null
[ "$(podman inspect -f '{{.State.ExitCode}}' "$PRETTY_CID")" = 0 ] || fail "pretty container: non-zero exit after SIGTERM"

step "podman healthcheck run"
if podman healthcheck run "$CID"; then echo "healthcheck: healthy"; else fail "healthcheck"; fi

step "podman stop (SIGTERM to Node as PID 1)"
podman stop -t 10 "$CID" >/dev/null
echo "exit code after stop: $(podman inspect -f '{{.State.ExitCode}}' "$CID")"
podman logs "$CID" 2>&1 | tail -n 5
[ "$(podman inspect -f '{{.State.ExitCode}}' "$CID")" = 0 ] || fail "non-zero exit after SIGTERM"

step "OK"
