#!/bin/bash
# The git CLI baseline of a forge turn commit: write N files as ONE commit on a branch, with
# plumbing only and one process per step (never one per file).
#
#   bench/git-turn.sh GITDIR BRANCH WORKDIR
#
# WORKDIR holds `blobs` (one content file per line, absolute paths) and `paths` (the repository
# path of each, same order). Prints the new commit. Steps:
#   rev-parse the branch -> read-tree its commit into a temporary index -> hash-object -w
#   --stdin-paths (all blobs, one process) -> update-index --index-info -> write-tree ->
#   commit-tree -p <parent> -> update-ref <branch> <new> <parent> (compare-and-swap).
set -euo pipefail
export GIT_DIR=$1
ref=refs/heads/$2
work=$3
export GIT_INDEX_FILE=$work/index

parent=$(git rev-parse --verify --quiet "$ref^{commit}")
git read-tree "$parent"
git hash-object -w --stdin-paths <"$work/blobs" |
  awk 'NR == FNR { path[FNR] = $0; next } { printf "100644 %s\t%s\n", $0, path[FNR] }' "$work/paths" - |
  git update-index --index-info
tree=$(git write-tree)
commit=$(git commit-tree "$tree" -p "$parent" -m "bench turn")
git update-ref "$ref" "$commit" "$parent"
echo "$commit"
