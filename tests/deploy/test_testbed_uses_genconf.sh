#!/bin/bash
# test_testbed_uses_genconf.sh: qcg-testbed writes no service configuration by hand: it sources
# deploy/qcg-genconf.sh (the generator qcg-deploy uses), its parts call each of its file writers,
# and no line of its own or of its parts prints a section header or a "key = value" line. That
# the daemons accept what it writes is shown by tests/testbed/services.test, and for qcg-deploy
# by test_deploy_services.sh.
. "$top_srcdir/tests/deploy/lib.sh"

TB=$top_srcdir/deploy/qcg-testbed
# qcg-testbed and the parts it sources (deploy/README-testbed.md)
PARTS=("$TB" "$top_srcdir"/deploy/testbed-*.sh)
grep -Eq '^tb_source qcg-genconf.sh genconf_broker' "$TB" &&
	pass testbed_sources_the_generator || fail testbed_sources_the_generator "no source of qcg-genconf.sh"

missing=""
for f in genconf_tls genconf_acl_line genconf_broker genconf_proxy genconf_frontend \
	genconf_frontend_cluster genconf_frontend_access genconf_frontend_nodes genconf_frontend_node \
	genconf_helper genconf_helper_privsep; do
	cat "${PARTS[@]}" | grep -Eq "^[^#]*\\b$f\\b" || missing="$missing $f"
	grep -Eq "^$f\\(\\) " "$top_srcdir/deploy/qcg-genconf.sh" || missing="$missing $f(undefined)"
done
[ -z "$missing" ] && pass testbed_calls_every_file_writer || fail testbed_calls_every_file_writer "missing:$missing"

hand=$(grep -nE "printf '(\\[[a-z]+\\]|[a-z_-]+ = |[a-z]+ \"%s)" "${PARTS[@]}")
[ -z "$hand" ] && pass testbed_prints_no_configuration_line_itself ||
	fail testbed_prints_no_configuration_line_itself "$hand"

deploy_exit
