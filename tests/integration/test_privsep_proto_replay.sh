#!/bin/sh
# test_privsep_proto_replay.sh: replay the launcher-protocol fuzz corpus (services/helper/
# corpus_privsep_proto) through fuzz_privsep_proto.c with the normal compiler, like tests/fuzz.
: "${top_srcdir:?}" "${top_builddir:?}"
exec "$top_builddir/services/helper/replay_privsep_proto" "$top_srcdir/services/helper/corpus_privsep_proto"
