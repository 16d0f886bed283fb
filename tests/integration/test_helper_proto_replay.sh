#!/bin/sh
# test_helper_proto_replay.sh: replay the local-API fuzz corpus (proto/corpus_helper_proto)
# through proto/fuzz_helper_proto.c with the normal compiler, like tests/fuzz.
: "${top_srcdir:?}" "${top_builddir:?}"
exec "$top_builddir/proto/replay_helper_proto" "$top_srcdir/proto/corpus_helper_proto"
