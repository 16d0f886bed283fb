#!/bin/bash
# test_deploy_units.sh: the systemd units qcg-deploy installs are clean for `systemd-analyze
# verify` (directives, ExecStart pointing at the built daemons, the man pages their
# Documentation= names, which are looked up in doc/), carry the hardening the README promises,
# and have every @WORD@ of the templates replaced. A deliberately broken copy must be reported,
# which shows that verify's silence means something here.
. "$top_srcdir/tests/deploy/lib.sh"

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze is not installed"; exit 77; }
command -v man >/dev/null || { echo "SKIP: man is not installed (verify checks Documentation=man:)"; exit 77; }

mkdir -p "$T/sbin" "$T/man/man1" "$T/man/man8"
for d in broker proxy frontend helper; do
	prog=$top_builddir/services/$d/qcg-$d
	[ -x "$prog" ] || { echo "SKIP: $prog is not built"; exit 77; }
	ln -s "$prog" "$T/sbin/"
done
for page in "$top_srcdir"/doc/*.[18]; do ln -s "$page" "$T/man/man${page##*.}/"; done

"$QCG_DEPLOY" generate --out "$T/out" --sbindir "$T/sbin" --paths-in-root \
	"$top_srcdir/doc/qcg-grid.example" >/dev/null 2>"$T/generate.err" ||
	{ echo "FAIL setup: generate: $(cat "$T/generate.err")"; exit 1; }

# verify_quiet NAME UNIT...: systemd-analyze verify must succeed and say nothing.
verify_quiet() {
	local name=$1 out rc
	shift
	out=$(MANPATH=$T/man systemd-analyze verify "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$out" ]; then pass "$name"; else fail "$name" "rc $rc: $out"; fi
}

# A template is verified through an instance of it, as systemd would run it.
U=$T/out/gw-c/etc/systemd/system
cp "$U/qcg-frontend@.service" "$U/qcg-frontend@c.service"
verify_quiet broker_unit_verifies "$T/out/broker/etc/systemd/system/qcg-broker.service"
verify_quiet proxy_unit_verifies "$U/qcg-proxy.service"
verify_quiet frontend_instance_unit_verifies "$U/qcg-frontend@c.service"
verify_quiet helper_unit_verifies "$T/out/a1/etc/systemd/system/qcg-helper.service"

# The negative control: an unknown directive and a bad value are reported.
sed -e 's/^Restart=on-failure$/Restart=sometimes/' -e 's/^\[Service\]$/[Service]\nFooBar=1/' \
	"$U/qcg-proxy.service" >"$U/qcg-broken.service"
out=$(MANPATH=$T/man systemd-analyze verify "$U/qcg-broken.service" 2>&1)
case $out in
*FooBar*sometimes* | *sometimes*FooBar*) pass verify_reports_a_broken_unit ;;
*) fail verify_reports_a_broken_unit "got: $out" ;;
esac

# Hardening: strict sandbox for the unprivileged daemons; the helper's units keep jobs alive
# with their files but kill them when it stops.
ok=1
for u in "$T/out/broker/etc/systemd/system/qcg-broker.service" "$U/qcg-proxy.service" \
	"$U/qcg-frontend@.service"; do
	for line in User=qcg NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
		CapabilityBoundingSet= SystemCallFilter=@system-service RestrictAddressFamilies=; do
		grep -q "^$line" "$u" || { fail unprivileged_units_are_hardened "${u##*/}: no $line"; ok=0; }
	done
done
[ "$ok" = 1 ] && pass unprivileged_units_are_hardened
H=$T/out/a1/etc/systemd/system/qcg-helper.service
grep -qx 'User=root' "$H" && grep -qx 'KillMode=control-group' "$H" && ! grep -q '^ProtectSystem' "$H" &&
	pass helper_unit_runs_as_root_and_kills_its_jobs_on_stop ||
	fail helper_unit_runs_as_root_and_kills_its_jobs_on_stop "$(cat "$H")"
# Privilege separation: the unit keeps what the launcher needs, not CAP_DAC_OVERRIDE.
grep -qx 'CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_KILL CAP_SYS_PTRACE CAP_CHOWN' "$H" &&
	pass helper_unit_keeps_only_the_launchers_capabilities ||
	fail helper_unit_keeps_only_the_launchers_capabilities "$(grep '^CapabilityBoundingSet' "$H")"

# Every template word is replaced, and ExecStart names the built daemon with its config.
left=$(grep -rl '@[A-Z_]*@' "$T/out"/*/etc/systemd/system 2>/dev/null)
[ -z "$left" ] && pass no_template_word_left || fail no_template_word_left "$left"
grep -qx "ExecStart=$T/sbin/qcg-broker -c $T/out/broker/etc/qcg/broker.conf" \
	"$T/out/broker/etc/systemd/system/qcg-broker.service" && pass execstart_names_daemon_and_config ||
	fail execstart_names_daemon_and_config "$(grep ExecStart "$T/out/broker/etc/systemd/system/qcg-broker.service")"

deploy_exit
