#!/bin/bash
# test-packages.sh: build qcg-ompi's Debian packages from this tree's HEAD, check them with
# lintian, install them on this machine with apt-get, check what they installed (units
# disabled and not started, the qcg account, the conffiles, the component where qcg-submit
# looks, the exact Open MPI dependency), run the demo's grid job from the installed files
# (examples/demo-grid.sh --installed /usr), then purge them and put the machine's package set
# and accounts back as they were, whatever happened.
#
#   flock /tmp/qcg-heavy.lock deploy/test-packages.sh [--debs DIR] [BUILD-DIR]
#
# --debs DIR   install the packages already built in DIR (its .deb and .changes) instead of
#              building them (that takes minutes); lintian still checks them.
# BUILD-DIR    a built tree for the demo's test programs, which are not packaged (default:
#              the source tree).
# Root; minutes of compiling and testbed time: not part of make check. It uses the testbed,
# so run it under the heavy-job lock. Only committed files are packaged (git archive HEAD).
set -euo pipefail
readonly PACKAGES=(qcg-broker qcg-frontend qcg-proxy qcg-tools openmpi-coll-qcg qcg-examples
	qcg-testbed)
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "test-packages: FAIL: $*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

debs=
if [[ ${1:-} == --debs ]]; then
	debs=$(cd "${2:?--debs needs a directory}" && pwd)
	shift 2
fi
top_builddir=$(cd "${1:-$top_srcdir}" && pwd)
((EUID == 0)) || die "run me as root: apt-get install, and the testbed's namespaces"
for p in "${PACKAGES[@]}"; do
	if dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$'; then
		die "$p is installed already: this test installs and purges the packages itself"
	fi
done

work=$(mktemp -d /tmp/qcg-packages.XXXXXX)
dpkg-query -W -f='${binary:Package}\n' | sort >"$work/before.list"
had_account=0 had_group=0
getent passwd qcg >/dev/null && had_account=1
getent group qcg >/dev/null && had_group=1
installed=0

# Purge what was installed, and whatever it pulled in, and the account if it was made here.
restore() {
	local rc=$? extra
	trap - EXIT INT TERM
	if ((installed)); then
		step "purge: the machine back as it was"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PACKAGES[@]}" >"$work/purge.log" 2>&1 ||
			{ cat "$work/purge.log"; echo "test-packages: purge failed" >&2; rc=1; }
		dpkg-query -W -f='${binary:Package}\n' | sort >"$work/after.list"
		extra=$(comm -13 "$work/before.list" "$work/after.list" | tr '\n' ' ')
		if [[ -n $extra ]]; then
			echo "purging what the packages pulled in: $extra"
			# shellcheck disable=SC2086
			DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $extra >>"$work/purge.log" 2>&1 ||
				{ echo "test-packages: could not purge $extra" >&2; rc=1; }
		fi
		# Debian leaves system accounts behind on purge (files may still belong to them);
		# this machine did not have it, so it goes.
		if ((!had_account)) && getent passwd qcg >/dev/null; then
			deluser --system --quiet qcg ||
				{ echo "test-packages: could not remove account qcg" >&2; rc=1; }
		fi
		if ((!had_group)) && getent group qcg >/dev/null; then
			delgroup --system --quiet qcg ||
				{ echo "test-packages: could not remove group qcg" >&2; rc=1; }
		fi
		dpkg-query -W -f='${binary:Package}\n' | sort >"$work/after.list"
		if ! cmp -s "$work/before.list" "$work/after.list"; then
			echo "test-packages: the package set differs from before:" >&2
			diff "$work/before.list" "$work/after.list" >&2 || true
			rc=1
		fi
		if [[ -e /etc/qcg ]]; then
			echo "test-packages: /etc/qcg is left after the purge:" >&2
			find /etc/qcg >&2
			rc=1
		fi
		((rc != 0)) || echo "purged; package set and accounts as before"
	fi
	if ((rc == 0)); then
		rm -rf "$work"
	else
		echo "test-packages: logs kept in $work" >&2
	fi
	exit "$rc"
}
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -z $debs ]]; then
	step "dpkg-buildpackage -us -uc -b (from git archive HEAD)"
	mkdir "$work/src"
	git -C "$top_srcdir" archive HEAD | tar -x -C "$work/src"
	t0=$(date +%s)
	(cd "$work/src" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) \
		>"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; die "dpkg-buildpackage failed"; }
	echo "built in $(($(date +%s) - t0)) s"
	debs=$work
fi
ls "$debs"/*.deb

step "lintian (errors and warnings fail; overridden tags carry their reason in debian/)"
changes=$(ls "$debs"/*.changes | head -n 1)
lint_rc=0
lintian --pedantic --fail-on error,warning "$changes" >"$work/lintian.txt" 2>&1 || lint_rc=$?
grep -v '^running with root' "$work/lintian.txt" || true
((lint_rc == 0)) || die "lintian reports errors or warnings (exit $lint_rc)"
echo "lintian: no errors or warnings"

step "apt-get install"
mapfile -t files < <(for p in "${PACKAGES[@]}"; do ls "$debs/${p}"_*.deb; done)
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${files[@]}" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; die "apt-get install failed"; }
echo "installed: ${PACKAGES[*]}"

step "what the packages installed"
# Units: present, filled in for the packages' paths and account, neither enabled nor started.
for u in qcg-broker.service qcg-proxy.service qcg-helper.service qcg-frontend@.service; do
	f=/lib/systemd/system/$u
	[[ -f $f ]] || die "$f is missing"
	grep -q '^ExecStart=/usr/sbin/qcg-' "$f" || die "$f does not start /usr/sbin/qcg-*"
	! grep -q '@[A-Z_]*@' "$f" || die "$f has placeholders left: $(grep -o '@[A-Z_]*@' "$f" | head -1)"
done
enabled=$(find /etc/systemd/system -name 'qcg-*' 2>/dev/null)
[[ -z $enabled ]] || die "units were enabled: $enabled"
! pgrep -x 'qcg-broker|qcg-proxy|qcg-frontend|qcg-helper' -u qcg >/dev/null 2>&1 ||
	die "a qcg daemon runs as qcg after the installation"
echo "units: installed, not enabled, not started"
# The account the units name: a system account, and reinstalling (postinst again) keeps it.
uid=$(getent passwd qcg | cut -d: -f3)
[[ -n $uid ]] || die "no account qcg"
((uid < 1000)) || die "account qcg has uid $uid: not a system account"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall "$debs"/qcg-broker_*.deb \
	"$debs"/qcg-proxy_*.deb >>"$work/install.log" 2>&1 || die "reinstalling (postinst again) failed"
[[ $(getent passwd qcg | cut -d: -f3) == "$uid" ]] || die "reinstalling changed the qcg account"
echo "account qcg: system uid $uid, unchanged by a second postinst"
# Conffiles.
for pc in qcg-broker:broker qcg-frontend:frontend qcg-frontend:helper qcg-proxy:proxy; do
	dpkg-query -W -f='${Conffiles}\n' "${pc%%:*}" | grep -q "^ /etc/qcg/${pc#*:}.conf " ||
		die "/etc/qcg/${pc#*:}.conf is no conffile of ${pc%%:*}"
done
echo "conffiles: /etc/qcg/{broker,frontend,helper,proxy}.conf"
# The component: in the directory qcg-submit names, loadable by this Open MPI, and tied to it.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
compdir=/usr/lib/$multiarch/qcg-ompi/openmpi
[[ -f $compdir/mca_coll_qcg.so ]] || die "$compdir/mca_coll_qcg.so is missing"
pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
# Nowhere else Open MPI looks by default, so that coll/qcg selected in the demo's job (below)
# can only have come from where qcg-submit pointed. (Not grepped out of /usr/bin/qcg-submit:
# the compiler stores the constant path in overlapping pieces.)
for d in "$pkglibdir" "$HOME/.openmpi/components"; do
	[[ ! -e $d/mca_coll_qcg.so ]] || die "$d/mca_coll_qcg.so exists: the demo would prove nothing"
done
OMPI_MCA_mca_base_component_path=$compdir:$pkglibdir ompi_info | grep -q "MCA coll: qcg (" ||
	die "ompi_info does not load $compdir/mca_coll_qcg.so"
ompi=$(dpkg-query -W -f='${Version}' "libopenmpi3:$(dpkg-architecture -qDEB_HOST_ARCH)")
dpkg-query -W -f='${Depends}\n' openmpi-coll-qcg | grep -qF "libopenmpi3 (= $ompi)" ||
	die "openmpi-coll-qcg does not depend on libopenmpi3 (= $ompi)"
echo "component: $compdir/mca_coll_qcg.so, loads, depends on libopenmpi3 (= $ompi)"

step "the demo's grid job from the installed files (examples/demo-grid.sh --installed /usr)"
# coll/qcg reports its selection, so the log shows the installed component ran in the job.
t0=$(date +%s)
if ! OMPI_MCA_coll_qcg_verbose=10 "$top_srcdir/examples/demo-grid.sh" --installed /usr \
	"$top_builddir" >"$work/demo.log" 2>&1; then
	tail -60 "$work/demo.log"
	die "the demo failed from the installed packages"
fi
grep -E '^(==|qcg-submit: job)|rank .* of 6|pi' "$work/demo.log" | head -40
grep -q 'comm MPI_COMM_WORLD (cid 0): selected: 3 sites' "$work/demo.log" ||
	die "coll/qcg was not selected on MPI_COMM_WORLD of the 3-site job (log: $work/demo.log)"
echo "demo passed from the installed packages in $(($(date +%s) - t0)) s; coll/qcg selected on MPI_COMM_WORLD"
