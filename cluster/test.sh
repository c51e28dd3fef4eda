#!/usr/bin/env bash
# The Ray driver against a local Ray cluster started here: N=13 in 8 shards matches the published counts; a
# shard whose worker dies is retried; a rerun with the checkpoint counts only the missing shards.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/setup.sh"
py="$here/.venv/bin/python"
binary=${FORKBOARD_BINARY:-$here/../target/debug/forkboard}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cluster test: $*" >&2; exit 1; }
driver() { "$py" "$here/ray_queens.py" 13 --shards 8 --binary "$binary" --checkpoint "$work/ck.jsonl" "$@"; }

echo "cluster test: N=13 in 8 shards, shard 3's worker killed on its first attempt"
FORKBOARD_RAY_DIE_ONCE="$work/died" FORKBOARD_RAY_DIE_SHARD=3/8 driver >"$work/out" 2>"$work/err" \
  || fail "the first run failed: $(cat "$work/err")"
grep -q "73712 *9233 .*matches" "$work/out" || fail "wrong counts: $(cat "$work/out")"
[ -e "$work/died.13.3" ] || fail "the worker of shard 3 was never killed"
[ "$(wc -l <"$work/ck.jsonl")" -eq 8 ] || fail "the checkpoint does not hold 8 shards"

echo "cluster test: a rerun with the whole checkpoint counts nothing"
driver >"$work/out" 2>"$work/err" || fail "the rerun failed: $(cat "$work/err")"
grep -q "8 already in the checkpoint, 0 to count" "$work/err" || fail "the rerun counted again: $(cat "$work/err")"
grep -q "73712 *9233 .*matches" "$work/out" || fail "wrong counts from the checkpoint: $(cat "$work/out")"

echo "cluster test: a crash after three shards (and a line cut short) resumes with the other five"
head -n 3 "$work/ck.jsonl" >"$work/part" && printf '{"n": 13, "sha' >>"$work/part" && mv "$work/part" "$work/ck.jsonl"
driver >"$work/out" 2>"$work/err" || fail "the resumed run failed: $(cat "$work/err")"
grep -q "3 already in the checkpoint, 5 to count" "$work/err" || fail "the resume did not skip: $(cat "$work/err")"
grep -q "73712 *9233 .*matches" "$work/out" || fail "wrong counts after the resume: $(cat "$work/out")"
driver >"$work/out" 2>"$work/err" || fail "the last rerun failed: $(cat "$work/err")"
grep -q "8 already in the checkpoint, 0 to count" "$work/err" || fail "resumed shards were not kept: $(cat "$work/err")"
echo "cluster test: passed"
