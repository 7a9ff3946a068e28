#!/bin/bash
# The git CLI baseline of forge's large-file turn (bench/real-like.mjs): read a line range of a
# file, replace one line, commit the result on a branch, with plumbing only.
#
#   bench/git-big-edit.sh GITDIR BRANCH PATH FROM TO LINE TEXT WORKDIR
#
# Prints lines FROM..TO of the file (the ranged read), then the new commit. Steps:
#   rev-parse the branch -> cat-file | sed -n FROM,TOp (the read) -> cat-file | sed LINEc |
#   hash-object -w --stdin (the edit, streamed) -> read-tree the parent into a temporary index
#   (GIT_INDEX_FILE) -> update-index --cacheinfo -> write-tree -> commit-tree -p <parent> ->
#   update-ref <branch> <new> <parent> (compare-and-swap). TEXT holds no backslash or newline.
set -euo pipefail
export GIT_DIR=$1
ref=refs/heads/$2
path=$3
from=$4
to=$5
line=$6
text=$7
export GIT_INDEX_FILE=$8/index

parent=$(git rev-parse --verify --quiet "$ref^{commit}")
git cat-file blob "$parent:$path" | sed -n "${from},${to}p"
blob=$(git cat-file blob "$parent:$path" | sed "${line}c\\
${text}" | git hash-object -w --stdin)
git read-tree "$parent"
git update-index --cacheinfo "100644,$blob,$path"
tree=$(git write-tree)
commit=$(git commit-tree "$tree" -p "$parent" -m "bench large-file edit")
git update-ref "$ref" "$commit" "$parent"
echo "$commit"
