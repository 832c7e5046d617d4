#!/bin/bash
# Issue 17, second measurement, reordered: HumanEval direct,team first (the p-value target).
cd /work/wt/bench17
export CODETEAM_BENCH_DATA=/work/shared/data
B=".venv/bin/codeteam bench --set max_tokens=384 --no-progress"
echo "start $(date -u) commit $(git rev-parse --short HEAD)"
$B --dataset humaneval --pipelines direct,team --generations-from /work/bench-results/r17b/he-fc8091d-direct-team --out /work/bench-results/r17b/humaneval; echo "humaneval direct,team rc=$? $(date -u)"
$B --dataset mbpp --pipelines direct,team,flow --out /work/bench-results/r17b/mbpp; echo "mbpp rc=$? $(date -u)"
$B --dataset humaneval --pipelines flow --out /work/bench-results/r17b/humaneval-flow; echo "humaneval flow rc=$? $(date -u)"
echo "end $(date -u)"
