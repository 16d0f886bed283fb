#!/bin/sh
# test_helper_proto_replay.sh: replay the local-API fuzz corpus (services/helper/
# corpus_helper_proto) through fuzz_helper_proto.c with the normal compiler, like tests/fuzz.
: "${top_srcdir:?}" "${top_builddir:?}"
exec "$top_builddir/services/helper/replay_helper_proto" "$top_srcdir/services/helper/corpus_helper_proto"
