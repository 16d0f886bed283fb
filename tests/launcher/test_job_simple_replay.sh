#!/bin/sh
# test_job_simple_replay.sh: replay the QCG-Simple fuzz corpus (tests/launcher/corpus_job_simple)
# through the fuzz target's checks, as an ordinary regression test.
exec "$top_builddir/tests/launcher/replay_job_simple" "$top_srcdir/tests/launcher/corpus_job_simple"
