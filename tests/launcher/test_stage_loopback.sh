#!/bin/bash
# test_stage_loopback.sh: staging on loopback with a real broker, front-end and helper: a
# 3.5 MiB input goes in (since 2026-11-26 as one PUT body, lib/http_stream.h; once seven
# 512 KiB WriteInputs) and comes back byte for byte through ReadOutput polls on one kept-alive
# TLS connection. gSOAP shows the first bytes of each body twice to the server's XML shape
# check; counted twice, they refused the fifth request on a connection ("more than 64
# namespace declarations"), which this still guards for the polls.
# (mpirun is /bin/true: the job runs nothing, the files travel as for any job.)
. "$top_srcdir/tests/integration/grid_fixture.sh"
SUBMIT="$top_builddir/launcher/qcg-submit"
D=$FIXTURE_DIR

fixture_init
broker_start
site_start sa open 1 sa1
export QCG_FRONTEND_URL_sa=$SITE_URL QCG_MPIRUN=/bin/true
chmod 755 "$D"
head -c 3670016 /dev/urandom >"$D/in.bin"
chmod 644 "$D/in.bin"
WORK=$D/work # the node's working directory (the mapped account writes there)
mkdir "$WORK" && chmod 1777 "$WORK"
printf '<job xmlns="urn:qcg-ompi:job:1">\n<executable>/bin/true</executable>
<workingDirectory>%s</workingDirectory>
<stageIn from="%s" to="in.dat"/>\n<stageOut from="in.dat" to="%s"/>
<resources><cluster name="sa" processes="1"/></resources></job>\n' "$WORK" "$D/in.bin" "$D/back.bin" >"$D/job.xml"
: >"$D/back.bin"; chmod 666 "$D/back.bin"
out=$(as_user jane "$SUBMIT" --broker "$BROKER_URL" "$D/job.xml" 2>&1); rc=$?
if [ $rc = 0 ] && cmp -s "$D/in.bin" "$D/back.bin"; then
	pass seven_chunks_on_one_connection_arrive_and_come_back_byte_for_byte
else
	fail seven_chunks_on_one_connection_arrive_and_come_back_byte_for_byte \
		"rc=$rc $out; sizes $(stat -c %s "$D/in.bin" "$D/back.bin" | tr '\n' ' ')"
fi
grep -q "namespace declarations" "$D"/*.log &&
	fail no_request_was_refused_by_the_shape_check "$(grep -h 'namespace declarations' "$D"/*.log | head -2)" ||
	pass no_request_was_refused_by_the_shape_check
[ -e "$WORK/in.dat" ] && fail the_staged_file_is_removed_at_the_end "$WORK/in.dat is left" ||
	pass the_staged_file_is_removed_at_the_end
fixture_exit
