#!/bin/bash
# test_testbed_uses_deploy.sh: qcg-testbed writes no service file itself: it describes its grid
# in qcg-deploy's format and runs qcg-deploy generate, which writes roles, ACLs, certificates
# and configurations. Neither qcg-testbed nor any part it sources calls the configuration
# generator's writers (qcg-genconf.sh, which qcg-deploy sources), issues a host certificate or
# prints a section header or "key = value" line. That the testbed's files are exactly
# qcg-deploy's, and that the daemons run on them, test_testbed_grid.sh shows on a live testbed.
. "$top_srcdir/tests/deploy/lib.sh"

TB=$top_srcdir/deploy/qcg-testbed
# qcg-testbed and the parts it sources (deploy/README-testbed.md)
PARTS=("$TB" "$top_srcdir"/deploy/testbed-*.sh)

calls=$(grep -nE '^[^#]*\bgenconf_[a-z_]+' "${PARTS[@]}")
[ -z "$calls" ] && pass testbed_calls_no_configuration_writer ||
	fail testbed_calls_no_configuration_writer "$calls"

certs=$(grep -nE '^[^#]*\b(tb_ca|qcg-ca|CA_TOOL"?) +host\b' "${PARTS[@]}")
[ -z "$certs" ] && pass testbed_issues_no_host_certificate ||
	fail testbed_issues_no_host_certificate "$certs"

hand=$(grep -nE "printf '(\\[[a-z]+\\]|[a-z_-]+ = |[a-z]+ \"%s)" "${PARTS[@]}")
[ -z "$hand" ] && pass testbed_prints_no_configuration_line_itself ||
	fail testbed_prints_no_configuration_line_itself "$hand"

grep -qE '^[^#]*"\$deploy" generate --out "\$DIR/tree" --ca "\$DIR/ca" --paths-in-root' \
	"$top_srcdir/deploy/testbed-services.sh" &&
	grep -qE '^[^#]*\} *>"\$DIR/grid.conf"' "$top_srcdir/deploy/testbed-services.sh" &&
	pass testbed_writes_a_grid_description_and_runs_qcg_deploy_generate ||
	fail testbed_writes_a_grid_description_and_runs_qcg_deploy_generate \
		"no 'qcg-deploy generate' on DIR/grid.conf in deploy/testbed-services.sh"

deploy_exit
