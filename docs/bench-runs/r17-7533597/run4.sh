#!/bin/bash
cd /work/wt/bench17
export CODETEAM_BENCH_DATA=/work/shared/data
echo "start $(date -u) commit $(git rev-parse --short HEAD)"
.venv/bin/codeteam bench --set max_tokens=384 --no-progress --dataset humaneval --pipelines flow --out /work/bench-results/r17b/humaneval-flow; echo "humaneval flow rc=$? $(date -u)"
