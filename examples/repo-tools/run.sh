#!/bin/sh
# The repository-tool workflow, scripted end to end on a temporary copy of the example-app
# fixture: the agent proposes tools/license_header.js and calls it -> refused (not approved),
# the turn ends; a person reviews and approves it -> the next turn uses it.
# Usage: sh examples/repo-tools/run.sh [dir]   (from the repository root, after npm install)
set -eu
forge() { node dist/cli.js "$@"; }
repo=${1:-$(mktemp -d)/example-app}
node fixtures-repos/build.mjs example-app "$repo" >/dev/null
script=examples/repo-tools/script.json

echo "== turn 1: the agent writes the tool and calls it"
# Exit 5: a tool call of the turn failed (the unapproved tool); the turn is committed all the same.
forge run --repo "$repo" --script "$script" --approve all --max-turns 1 --id license-demo || [ $? -eq 5 ]

echo "== the person reviews the proposed tool and approves it on the session branch"
forge tools list --repo "$repo" --session license-demo
forge tools diff license_header --repo "$repo" --session license-demo
forge tools approve license_header --repo "$repo" --session license-demo

echo "== turn 2: the agent uses the approved tool"
forge run --repo "$repo" --session license-demo --script "$script" --approve all

echo "== result"
git -C "$repo" log --format='%h %s' forge/session/license-demo
git -C "$repo" show forge/session/license-demo:src/math.js | head -3
