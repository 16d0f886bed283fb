#!/bin/bash
# run.sh [BUILD-DIR]: staging throughput (issue 12). One open site of one node on a testbed
# with --separate-fs --workstation (WAN delay 2 ms; host user runs no qcg service, mpirun runs
# inside the job on a1), qcg-submit on host user. For a file of MIB MiB (default 50),
# alternated REPS times (default 3), each a separate qcg-submit or copy:
#   bare     qcg-submit of /bin/true on a1, nothing staged
#   in       the same with the file staged in (user -> front-end on gw-a -> helper on a1: TLS,
#            the bytes as an HTTP PUT body, SHA-256 on both ends, written to a file on a1)
#   inout    /bin/cp in.dat out.dat with the file staged in and out.dat staged back (the cp of
#            MIB MiB on a1 is part of it: tens of ms)
#   tcp-in   a plain TCP copy of the same bytes from user to a1 (python sockets, no TLS, no
#            checksum), written to a file on a1: the same network path (user -> gw-a -> a1)
#   tcp-out  the same bytes back from a1 to user, user connecting (it admits no inbound
#            connection), written to a file on user
# Reported: the medians, staging in = in - bare, out = inout - in, MiB/s, and the ratios
# staging throughput / TCP throughput, with the load average before and after every run.
# Not a test. Holds /tmp/qcg-heavy.lock, then the testbed lock; its testbed is always brought
# down.
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
exec 9>/tmp/qcg-heavy.lock
flock -w 1800 9 || { echo "run.sh: /tmp/qcg-heavy.lock stayed busy" >&2; exit 1; }
exec 8>/run/qcg-testbed-tests.lock
flock -w 900 8 || { echo "run.sh: the testbed lock stayed busy" >&2; exit 1; }
# the job files (MIB MiB and its copy) are ours, not the testbed's: down leaves them
trap '"$QTB" --dir "$TB" down >/dev/null 2>&1 8>&- 9>&-; rm -rf "$TB/jobs"' EXIT
rm -rf "$TB/jobs" # a run killed before its trap
echo "start $(date -u '+%F %T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$S" rev-parse --short HEAD 2>/dev/null)"
"$QTB" --dir "$TB" up --sites 1 --nodes 1 --policies open --separate-fs --workstation \
	--wan-delay 2 8>&- 9>&- >/dev/null
# shellcheck source=/dev/null
. "$TB/env"
D=$TB/jobs
mkdir -p "$D"
head -c $((MIB * 1024 * 1024)) /dev/urandom >"$D/input.dat"
a1=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "a1" { print $c["lan_addr"] }' "$TB/hosts")
on() { local h=$1; shift; "$QTB" --dir "$TB" exec "$h" -- "$@" 8>&- 9>&-; }
on_user() {
	on user env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 "$@"
}
job() {
	printf '<job xmlns="urn:qcg-ompi:job:1" name="stage-%s">\n' "$1"
	case $1 in
	bare) printf '<executable>/bin/true</executable>\n' ;;
	in) printf '<executable>/bin/true</executable>\n<stageIn from="%s" to="in.dat"/>\n' "$D/input.dat" ;;
	inout) printf '<executable>/bin/cp</executable><argument>in.dat</argument><argument>out.dat</argument>\n'
		printf '<stageIn from="%s" to="in.dat"/>\n<stageOut from="out.dat" to="%s"/>\n' "$D/input.dat" "$D/back.dat" ;;
	esac
	printf '<resources><site name="a"><cluster name="a" processes="1"/></site></resources>\n</job>\n'
}
for j in bare in inout; do job $j >"$D/$j.xml"; done
now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
# timed NAME CMD...: appends "seconds" to $D/NAME.t and the load before/after to $D/load
timed() {
	local name=$1 t0 t1 l0
	shift
	l0=$(load)
	t0=$(now)
	"$@" >"$D/last.out" 2>&1 || { echo "run.sh: $name failed:" >&2; tail -n 5 "$D/last.out" >&2; exit 1; }
	t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/$name.t"
	echo "$name $l0 $(load)" >>"$D/load"
}
# TCP: the listener on a1 writes a ready mark (the testbed's directory is seen by every host)
RECV='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 47001)); s.listen(1)
open(sys.argv[1], "w").close()
c,_=s.accept(); n=0
with open(sys.argv[2], "wb") as f:
    while True:
        b=c.recv(1<<20)
        if not b: break
        f.write(b); n+=len(b)
c.sendall(b"%d\n" % n); c.close()'
SEND='import socket,sys
c=socket.create_connection((sys.argv[1], 47001)); f=open(sys.argv[2],"rb")
while True:
    b=f.read(1<<20)
    if not b: break
    c.sendall(b)
c.shutdown(socket.SHUT_WR); print(c.recv(64).decode().strip())'
SERVE='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 47001)); s.listen(1)
open(sys.argv[1], "w").close()
c,_=s.accept(); f=open(sys.argv[2],"rb")
while True:
    b=f.read(1<<20)
    if not b: break
    c.sendall(b)
c.close()'
FETCH='import socket,sys
c=socket.create_connection((sys.argv[1], 47001)); n=0
with open(sys.argv[2], "wb") as f:
    while True:
        b=c.recv(1<<20)
        if not b: break
        f.write(b); n+=len(b)
print(n)'
# listen_on_a1 PROGRAM ARG: starts PROGRAM on a1 and waits (at most 30 s) for its ready mark
listen_on_a1() {
	local i
	rm -f "$D/ready"
	on a1 python3 -c "$1" "$D/ready" "$2" &
	LISTENER=$!
	for ((i = 0; i < 300; i++)); do [[ -e $D/ready ]] && break; sleep 0.1; done
	[[ -e $D/ready ]] || { echo "run.sh: the TCP listener on a1 did not start" >&2; exit 1; }
}
tcp_in() {
	listen_on_a1 "$RECV" /tmp/tcp-in.dat
	timed tcp-in on user python3 -c "$SEND" "$a1" "$D/input.dat"
	wait "$LISTENER"
	on a1 rm -f /tmp/tcp-in.dat
}
tcp_out() {
	listen_on_a1 "$SERVE" "$D/input.dat"
	timed tcp-out on user python3 -c "$FETCH" "$a1" /tmp/tcp-out.dat
	wait "$LISTENER"
	on user rm -f /tmp/tcp-out.dat
}
: >"$D/load"
for ((i = 0; i < REPS; i++)); do
	timed bare on_user "$B/launcher/qcg-submit" "$D/bare.xml"
	timed in on_user "$B/launcher/qcg-submit" "$D/in.xml"
	rm -f "$D/back.dat"
	timed inout on_user "$B/launcher/qcg-submit" "$D/inout.xml"
	cmp -s "$D/input.dat" "$D/back.dat" || { echo "run.sh: the file came back different" >&2; exit 1; }
	tcp_in
	tcp_out
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
runs() { tr '\n' ' ' <"$D/$1.t" | sed 's/ $//'; }
m() { median <"$D/$1.t"; }
bt=$(m bare) it=$(m in) iot=$(m inout) ti=$(m tcp-in) to=$(m tcp-out)
sin=$(echo "$it - $bt" | bc) sout=$(echo "$iot - $it" | bc)
rate() { echo "$MIB / $1" | bc -l; }
printf 'file %d MiB, %d repetitions (alternated), medians in s (runs):\n' "$MIB" "$REPS"
for n in bare in inout tcp-in tcp-out; do printf '  %-8s %.3f (%s)\n' "$n" "$(m $n)" "$(runs $n)"; done
printf 'staging in  %.2f s = %.1f MiB/s; TCP %.2f s = %.1f MiB/s; ratio %.3f\n' \
	"$sin" "$(rate "$sin")" "$ti" "$(rate "$ti")" "$(echo "$ti / $sin" | bc -l)"
printf 'staging out %.2f s = %.1f MiB/s; TCP %.2f s = %.1f MiB/s; ratio %.3f\n' \
	"$sout" "$(rate "$sout")" "$to" "$(rate "$to")" "$(echo "$to / $sout" | bc -l)"
printf 'load average (1 min) over the runs: %s to %s\n' \
	"$(awk '{ print $2; print $3 }' "$D/load" | sort -n | head -n 1)" \
	"$(awk '{ print $2; print $3 }' "$D/load" | sort -n | tail -n 1)"
echo "end $(date -u '+%F %T') UTC"
