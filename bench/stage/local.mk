EXTRA_DIST += bench/stage/run.sh bench/stage/README.md
