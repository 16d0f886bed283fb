#!/bin/bash
# run.sh [BUILD-DIR]: staging throughput (issue 12). One open site of one node on a testbed
# with --separate-fs (WAN delay 2 ms, services on), qcg-submit on host user. For a file of
# MIB MiB (default 50), alternated REPS times (default 3):
#   staged   qcg-submit of /bin/true on a1 with the file staged in (user -> front-end gw-a ->
#            helper a1: TLS, chunked SOAP, SHA-256 on both ends), minus
#   bare     the same job without the file
#   tcp      a plain TCP copy of the same file from host user to a1 (python sockets, no TLS,
#            no checksum), the same network path
# Reported: the median of each, MiB/s, and the ratio staged throughput / tcp throughput.
# Not a test; holds the testbed lock; its testbed is always brought down.
set -euo pipefail
B=$(realpath "${1:-.}")
S=$(cd "$(dirname "$0")/../.." && pwd)
QTB=$S/deploy/qcg-testbed
REPS=${REPS:-3}
MIB=${MIB:-50}
TB=/var/tmp/qcg-tb-stage-bench
for p in "$B/launcher/qcg-submit" "$B/services/frontend/qcg-frontend"; do
	[[ -x $p ]] || { echo "run.sh: $p is not built" >&2; exit 1; }
done
export QCG_TESTBED_BIN=$B
exec 8>/run/qcg-testbed-tests.lock
flock -w 900 8 || { echo "run.sh: the testbed lock stayed busy" >&2; exit 1; }
trap '"$QTB" --dir "$TB" down >/dev/null 2>&1 8>&-' EXIT
"$QTB" --dir "$TB" up --sites 1 --nodes 1 --policies open --separate-fs --wan-delay 2 8>&- >/dev/null
# shellcheck source=/dev/null
. "$TB/env"
D=$TB/jobs
mkdir -p "$D"
head -c $((MIB * 1024 * 1024)) /dev/urandom >"$D/input.dat"
a1=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "a1" { print $c["lan_addr"] }' "$TB/hosts")
on() { local h=$1; shift; "$QTB" --dir "$TB" exec "$h" -- "$@" 8>&-; }
on_user() {
	on user env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" timeout 300 "$@"
}
job() {
	printf '<job xmlns="urn:qcg-ompi:job:1" name="%s">\n<executable>/bin/true</executable>\n' "$1"
	# the staged job's directory is made by its stage-in; the bare job's must exist already
	printf '<workingDirectory>%s</workingDirectory>\n' "$([[ $1 == bare ]] && echo /tmp || echo /tmp/stage-bench)"
	[[ $1 == bare ]] || printf '<stageIn from="%s" to="in.dat"/>\n' "$D/input.dat"
	printf '<resources><site name="a"><cluster name="a" processes="1"/></site></resources>\n</job>\n'
}
job staged >"$D/staged.xml"
job bare >"$D/bare.xml"
now() { date +%s.%N; }
timed() { local t0; t0=$(now); "$@" >"$D/last.out" 2>&1 || { echo "run.sh: $* failed:" >&2; tail -n 3 "$D/last.out" >&2; exit 1; }; echo "$(now) - $t0" | bc; }
RECV='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 47001)); s.listen(1)
open(sys.argv[1], "w").close()
c,_=s.accept(); n=0
while True:
    b=c.recv(1<<20)
    if not b: break
    n+=len(b)
c.sendall(b"%d\n" % n); c.close()'
SEND='import socket,sys
c=socket.create_connection((sys.argv[1], 47001)); f=open(sys.argv[2],"rb")
while True:
    b=f.read(1<<20)
    if not b: break
    c.sendall(b)
c.shutdown(socket.SHUT_WR); print(c.recv(64).decode().strip())'
tcp_once() {
	rm -f "$D/ready"
	on a1 python3 -c "$RECV" "$D/ready" &
	local r=$! i
	for ((i = 0; i < 300; i++)); do [[ -e $D/ready ]] && break; sleep 0.1; done # bounded: 30 s
	[[ -e $D/ready ]] || { echo "run.sh: the TCP listener on a1 did not start" >&2; exit 1; }
	timed on user python3 -c "$SEND" "$a1" "$D/input.dat"
	wait "$r"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$D/staged.t"; : >"$D/bare.t"; : >"$D/tcp.t"
for ((i = 0; i < REPS; i++)); do
	timed on_user "$B/launcher/qcg-submit" "$D/staged.xml" >>"$D/staged.t"
	timed on_user "$B/launcher/qcg-submit" "$D/bare.xml" >>"$D/bare.t"
	tcp_once >>"$D/tcp.t"
done
st=$(median <"$D/staged.t") bt=$(median <"$D/bare.t") tt=$(median <"$D/tcp.t")
stage=$(echo "$st - $bt" | bc)
printf 'file %d MiB, %d repetitions, medians:\n' "$MIB" "$REPS"
printf '  qcg-submit with the file %.2f s, without %.2f s: staging %.2f s, %.1f MiB/s\n' \
	"$st" "$bt" "$stage" "$(echo "$MIB / $stage" | bc -l)"
printf '  plain TCP copy %.2f s, %.1f MiB/s\n' "$tt" "$(echo "$MIB / $tt" | bc -l)"
printf '  staging throughput / TCP throughput = %.3f\n' "$(echo "$tt / $stage" | bc -l)"
