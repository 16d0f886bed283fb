#!/bin/bash
# test_testbed_grid.sh: the files a testbed's daemons run on are qcg-deploy's. On a live testbed
# (two sites, open and closed with a gateway proxy, a WAN proxy, host user's own cluster):
#  - `up` wrote DIR/grid.conf, which `qcg-deploy check` accepts (the daemons' -n included), and
#    which declares every host of the testbed and the test user;
#  - each daemon's DIR/etc/<daemon>.conf is the file in its host's tree DIR/tree/<host>/, and
#    every daemon runs;
#  - `qcg-deploy install` of a gateway (front-end and proxy) and of a node, from the same
#    description and CA, writes the same files, byte for byte, as the testbed's trees hold
#    (those name their paths inside the tree, --paths-in-root; install names them as installed).
set -euo pipefail
source "$top_srcdir/tests/testbed/lib.sh"

for p in broker/qcg-broker proxy/qcg-proxy frontend/qcg-frontend helper/qcg-helper; do
	[[ -x $top_builddir/services/$p ]] || skip "services/$p is not built yet"
done
command -v openssl >/dev/null || skip "openssl is not installed"
readonly DEPLOY=$top_srcdir/deploy/qcg-deploy DEPLOY_TIMEOUT=300
export QCG_DEPLOY_DAEMONS=$top_builddir

tb up --sites 2 --nodes 1 --policies open,closed --proxies 1 --frontend-proxy --wan-delay 0 ||
	fail "up with services failed"
G=$TB_DIR/grid.conf

check "qcg-deploy check accepts the testbed's grid description" \
	'timeout $DEPLOY_TIMEOUT "$DEPLOY" check "$G" >"$TB_DIR/check.out" 2>&1 ||
	 { cat "$TB_DIR/check.out"; false; }'
for h in broker proxy1 gw-a gw-b a1 b1 user; do
	check "grid.conf declares $h" \
		"grep -qE '^(broker|proxy|node) $h |^cluster [a-z]+ frontend=$h ' \"\$G\""
done
check "grid.conf declares gw-b's proxy for its closed site" \
	"grep -qE '^proxy gw-b .*cluster=b( |$)' \"\$G\""
check "grid.conf maps the test user" \
	"grep -qxF 'user root /O=Grid/OU=qcg-ompi/CN=testbed user' \"\$G\""

status=$(tb status || true)
for d in broker:broker proxy-proxy1:proxy1/etc/qcg/proxy.conf proxy-gw-b:gw-b/etc/qcg/proxy.conf \
	frontend-a:gw-a/etc/qcg/frontend-a.conf frontend-b:gw-b/etc/qcg/frontend-b.conf \
	frontend-user:user/etc/qcg/frontend-user.conf helper-a1:a1/etc/qcg/helper.conf \
	helper-b1:b1/etc/qcg/helper.conf helper-user:user/etc/qcg/helper.conf; do
	name=${d%%:*} file=${d#*:}
	[[ $name != broker ]] || file=broker/etc/qcg/broker.conf
	check "$name runs on $file of qcg-deploy's tree" \
		"[[ \$(readlink -f \"\$TB_DIR/etc/$name.conf\") == \"\$TB_DIR/tree/$file\" ]] &&
		 grep -qE '^$name +[^ ]+ +alive' <<<\"\$status\""
done

# The same description and CA, one host at a time, as an administrator installs it.
for h in gw-b b1; do
	root=$TB_DIR/install-$h tree=$TB_DIR/tree/$h
	if ! timeout "$DEPLOY_TIMEOUT" "$DEPLOY" install --host "$h" --root "$root" --ca "$TB_DIR/ca" \
		"$G" >"$TB_DIR/install-$h.out" 2>&1; then
		cat "$TB_DIR/install-$h.out"
		check "qcg-deploy install --host $h" false
		continue
	fi
	files=$(cd "$root" && find . -type f | sort)
	# The running helper's node topology (helper.topology_xml, beside its socket) is its own
	# state, written at start, as the socket is; not a file install writes.
	check "install writes $h's files and only those of its tree" \
		"[[ \$files == \"\$(cd \"\$tree\" && find . -type f ! -name '*.topology.xml' | sort)\" ]] && [[ -n \$files ]]"
	differ=""
	for f in $files; do
		sed "s|$tree/|/|g" "$tree/$f" | cmp -s - "$root/$f" || differ+=" $f"
	done
	check "every file of $h is install's, byte for byte (paths inside the tree aside):${differ:- none differ}" \
		"[[ -z \$differ ]]"
	check "$h's configuration names its paths inside its tree" \
		"grep -q \"^cert = \$tree/etc/grid-security/hostcert.pem\$\" \"\$tree\"/etc/qcg/*.conf"
done

((bad == 0)) || fail "some checks failed"
echo "all checks passed"
