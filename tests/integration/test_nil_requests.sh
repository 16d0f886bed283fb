#!/bin/bash
# test_nil_requests.sh: no request element kills a service. Every operation of the four WSDLs
# (read from wsdl/, so a new operation is covered without touching this test) is sent to a real
# qcg-broker, qcg-frontend, qcg-helper and qcg-proxy on loopback with its request element as
# xsi:nil (Perl SOAP::Lite does this for a call without arguments), empty, complete, and with
# each element at every depth nil and then missing in turn; from certificates of the grid CA
# that are authorized for the operation (mapped user, front-end, helper, proxy) and from one
# that is not (bob). Each answer must be a SOAP Fault, or the operation's response when no
# required element was left out, and the daemon must still run and answer a normal request
# after each (tests/integration/nil_requests.py). Names (qcg:Name elements) holding a newline
# and a control character must be refused as well. A daemon that dies is named with the request
# that killed it, restarted, and the remaining operations are still tried, so that one run
# counts every operation that crashes.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
for prog in services/broker/qcg-broker services/frontend/qcg-frontend services/helper/qcg-helper \
	services/proxy/qcg-proxy; do
	[ -x "$top_builddir/$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
done
. "$top_srcdir/tests/integration/grid_fixture.sh"
trap 'frontend_stop_all; proxy_stop_all; helper_cleanup; fixture_cleanup' EXIT
D=$FIXTURE_DIR
NIL="/usr/bin/python3 $top_srcdir/tests/integration/nil_requests.py"
TYPES=$top_srcdir/wsdl/qcg-types.xsd
CRASHED=""

fixture_init
host_cert gw-sa   # the front-end under test, cluster site-a, which a1 is a node of
host_cert a1      # the node whose qcg-helper is under test
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/a1"' >"$D/fe.acl"
broker_start
PA=$(free_port)
write_frontend_conf "$D/fe.conf" gw-sa site-a open "$D/fe.acl" "$D/fe-grid-mapfile" \
	"a1 = https://127.0.0.1:$PA/ 2"
frontend_start "$D/fe.conf" "$D/fe.log"
HELPER_CLUSTER=site-a helper_start a1 127.0.0.1 "$FRONTEND_URL" -s "helper.listen=127.0.0.1:$PA"
write_proxy_conf "$D/proxy.conf" proxy-1 127.0.0.0/8 ""
proxy_start "$D/proxy.conf" "$D/proxy.log"

# who NAME...: the NAME=CERT,KEY arguments of nil_requests.py.
who() {
	local n
	for n in "$@"; do printf '%s=%s,%s ' "$n" "$D/$n-cert.pem" "$D/$n-key.pem"; done
}
# port_of URL: the port of https://HOST:PORT/.
port_of() { local p=${1##*:}; echo "${p%%/*}"; }

# Per service: the daemon's pid and port now, and how to bring it back after a crash (wait
# reaps the dead one; the broker comes back on its port so the front-end and proxy find it).
broker_pid() { echo "$BROKER_PID"; }
broker_port() { echo "$BROKER_PORT"; }
broker_restart() { wait "$BROKER_PID" 2>/dev/null; broker_restart_same_port; }
frontend_pid() { echo "$FRONTEND_PID"; }
frontend_port() { echo "$FRONTEND_PORT"; }
frontend_restart() { wait "$FRONTEND_PID" 2>/dev/null; frontend_start "$D/fe.conf" "$D/fe.log"; }
helper_pid() { echo "$HELPER_PID"; }
helper_port() { echo "$PA"; }
helper_restart() {
	wait "$HELPER_PID" 2>/dev/null
	HELPER_CLUSTER=site-a helper_start a1 127.0.0.1 "$FRONTEND_URL" -s "helper.listen=127.0.0.1:$PA"
}
proxy_pid() { echo "$PROXY_PID"; }
proxy_port() { port_of "$PROXY_CONTROL_URL"; }
proxy_restart() { wait "$PROXY_PID" 2>/dev/null; proxy_start "$D/proxy.conf" "$D/proxy.log"; }

# check_service SERVICE PROBE-OPERATION WHO...: every operation of wsdl/SERVICE.wsdl; PROBE is
# the normal request (sent as the first WHO) that must be answered after each bad one.
check_service() {
	local svc=$1 probe=$2 wsdl=$top_srcdir/wsdl/$1.wsdl op out
	shift 2
	for op in $($NIL ops "$wsdl"); do
		# shellcheck disable=SC2046 # who prints one argument per identity
		out=$($NIL send "$wsdl" "$TYPES" "$op" 127.0.0.1 "$("${svc}_port")" \
			"$D/ca/certificates" "$("${svc}_pid")" "$probe" $(who "$@") 2>&1)
		case $out in
		*" failures=0 died=no") echo "$out"
			pass "${svc}_${op}_answers_nil_empty_and_missing_elements_with_a_fault" ;;
		*"died=yes")
			CRASHED="$CRASHED $svc.$op"
			fail "${svc}_${op}_survives_nil_empty_and_missing_elements" \
				"$(echo "$out" | grep 'daemon died')"
			"${svc}_restart" ;;
		*) fail "${svc}_${op}_answers_nil_empty_and_missing_elements_with_a_fault" "$out" ;;
		esac
	done
}

check_service broker ListJobs jane gw-a proxy-1 bob
check_service frontend Commit jane a1 bob
check_service helper ReadOutput gw-sa bob
check_service proxy GetStatistics jane bob
echo "operations that killed their daemon: $(echo $CRASHED | wc -w)${CRASHED:+ (}${CRASHED# }${CRASHED:+)}"
fixture_exit
