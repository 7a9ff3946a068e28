#!/bin/bash
# The git CLI way to give an agent its own workspace and commit one turn there, the baseline of
# `forge session new` + one `forge turn` (bench/real-like.mjs): `git worktree add` a new branch
# from main (checks out every file), write the changed files, `git add` them, `git commit`.
#
#   bench/git-worktree-turn.sh GITDIR BRANCH WORKTREE WORKDIR
#
# WORKDIR holds `blobs` (one content file per line, absolute paths) and `paths` (the repository
# path of each, same order), as for bench/git-turn.sh. Prints the new commit. The worktree stays
# (`git worktree remove` is timed on its own).
set -euo pipefail
export GIT_DIR=$1
branch=$2
wt=$3
work=$4

git worktree add -q -b "$branch" "$wt" main
while IFS= read -r src <&3 && IFS= read -r dst <&4; do
  cp "$src" "$wt/$dst"
done 3<"$work/blobs" 4<"$work/paths"
unset GIT_DIR
cd "$wt"
git add --pathspec-from-file="$work/paths"
git commit -q -m "bench turn"
git rev-parse HEAD
