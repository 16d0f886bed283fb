# shellcheck shell=bash
# testbed-fs.sh: `qcg-testbed up --separate-fs`, hosts that share no files (sourced by
# qcg-testbed; see deploy/README-testbed.md, "Separate filesystems").
#
# Every host gets a persistent mount namespace of its own, made once by `unshare --mount`
# and bind-mounted at $RUNDIR/mnt/<host> (a directory with private propagation, as unshare
# requires), then entered with `nsenter --mount=...` next to the UTS namespace wherever the
# testbed runs something on the host (tb_spawn, tb_enter). In it:
#
#   - what a real host keeps to itself is an empty tmpfs of its own: TBFS_PRIVATE below
#     (/tmp, /var/tmp, /home, /root, /run/user, /etc/grid-security, /run/qcg, ...);
#   - the software is shared: /usr read-only (as if every site had installed the same
#     packages), the build tree or install prefix as it is;
#   - the testbed's state directory ($DIR: configurations, certificates, logs, sockets,
#     the tests' job files) and the software (a build tree may well be cloned under /tmp)
#     stay visible at their paths even when they lie under one of the private directories:
#     they stand for what each site's administrator installed, and the tests drive the grid
#     through the state directory.
#
# The namespace is a slave of the machine's: network namespaces added or deleted later
# (/run/netns, a shared mount) appear and vanish in it too, so `ip netns exec` inside it finds
# its host's, and a deleted namespace is not kept alive by our copy. Mounts made inside never
# leave it. `down` unmounts every namespace file and the directory's own bind mount.

readonly TBFS_PRIVATE=(/tmp /var/tmp /home /root /run/user /run/qcg /etc/grid-security
	/var/lib/qcg /var/log/qcg)
readonly TBFS_TMPFS_SIZE=512m # per private directory: a runaway job cannot fill the machine

# Prepare $RUNDIR/mnt for mount namespace files: a bind mount of itself, private.
tbfs_prepare() {
	mkdir -p "$RUNDIR/mnt" "$RUNDIR/keep"
	mount --bind "$RUNDIR/mnt" "$RUNDIR/mnt"
	mount --make-private "$RUNDIR/mnt"
}

# The directories every host must still see at their paths even when they lie under a private
# one: the state directory ($DIR), the software this testbed runs (each $QCG_TESTBED_BIN entry,
# and the tree qcg-testbed itself came from), e.g. a build tree cloned under /tmp. One per line;
# a directory inside another one listed is left out (it comes along).
tbfs_kept_dirs() {
	local -a dirs bins
	local d k keep
	IFS=: read -r -a bins <<<"${QCG_TESTBED_BIN:-}"
	for d in "$DIR" "${bins[@]}" "$(dirname "$SCRIPT_DIR")"; do
		[[ -n $d && -d $d ]] || continue
		dirs+=("$(cd "$d" && pwd -P)")
	done
	for d in "${dirs[@]}"; do
		keep=1
		for k in "${dirs[@]}"; do
			[[ $d != "$k" && $d == "$k"/* ]] && keep=0
		done
		((keep)) && printf '%s\n' "$d"
	done | sort -u
}

# What runs inside a new host namespace to make it private ($1 = a directory to hold the kept
# directories meanwhile, $2 = tmpfs size, $3 = the kept directories, newline-separated, then
# the private directories).
# shellcheck disable=SC2016  # expanded by the inner shell
readonly TBFS_SETUP='
set -eu
hold=$1 size=$2 kept=$3
shift 3
# Whatever a private directory will hide, the kept directories must stay: hold them aside,
# each under its number, with what it was (device:inode) to tell afterwards whether it is gone.
i=0
for d in $kept; do
	i=$((i + 1))
	mkdir -p "$hold/$i"
	mount --bind "$d" "$hold/$i"
	stat -c %d:%i "$d" >"$hold/$i.id"
done
# Mounts the machine still had when we copied them (other testbeds namespace files, which
# would otherwise live as long as we do): not ours to keep.
for m in $(awk '\''$5 ~ "^/run/qcg-testbed/.*/mnt" { print $5 }'\'' /proc/self/mountinfo | sort -r); do
	umount -l "$m" 2>/dev/null || true
done
for d in "$@"; do
	[ -d "$d" ] || continue
	mode=$(stat -c %a "$d")
	mount -t tmpfs -o "mode=$mode,size=$size,nosuid,nodev" qtb-private "$d"
done
mount --bind /usr /usr
mount -o remount,bind,ro /usr
i=0
for d in $kept; do
	i=$((i + 1))
	if [ "$(stat -c %d:%i "$d" 2>/dev/null)" = "$(cat "$hold/$i.id")" ]; then
		umount "$hold/$i" # still where it was: no private directory hides it
	else
		mkdir -p "$d"
		mount --move "$hold/$i" "$d"
	fi
done
'

# Give host $1 its private mount namespace (after its network and UTS namespaces exist).
tbfs_make_host() {
	local h=$1 ns=$RUNDIR/mnt/$1 kept
	: >"$ns"
	mkdir -p "$RUNDIR/keep/$h"
	kept=$(tbfs_kept_dirs)
	# one per line, split by the inner sh on white space: a path with a blank would be split
	[[ $(printf '%s' "$kept" | tr -d '\n') != *[[:space:]]* ]] ||
		die "--separate-fs: a directory hosts must share has a blank in its path: $kept"
	unshare --mount="$ns" --propagation slave -- /bin/sh -c "$TBFS_SETUP" tbfs-setup \
		"$RUNDIR/keep/$h" "$TBFS_TMPFS_SIZE" "$kept" "${TBFS_PRIVATE[@]}" ||
		die "could not make host $h's private filesystem"
}

# Append to array TBFS_ENTER the nsenter option that enters host $1's mount namespace; nothing
# when the testbed shares one filesystem. An array in this shell, not printed through `< <(...)`:
# that subshell may still be exiting when the caller execs, and it would stay behind as an
# extra root child of the daemon or command exec'd.
tbfs_enter_args() {
	if [[ -e $RUNDIR/mnt/$1 ]] && mountpoint -q "$RUNDIR/mnt/$1"; then
		TBFS_ENTER+=("--mount=$RUNDIR/mnt/$1")
	fi
	return 0
}

# Whether the testbed of $RUNDIR has separate filesystems.
tbfs_is_separate() { mountpoint -q "$RUNDIR/mnt" 2>/dev/null; }

# Unmount every namespace file, then the directory; nothing of ours stays in mountinfo.
tbfs_down() {
	local f
	[[ -d $RUNDIR/mnt ]] || return 0
	for f in "$RUNDIR"/mnt/*; do umount "$f" 2>/dev/null || umount -l "$f" 2>/dev/null || true; done
	umount "$RUNDIR/mnt" 2>/dev/null || umount -l "$RUNDIR/mnt" 2>/dev/null || true
	if grep -qF " $RUNDIR/" /proc/self/mountinfo; then
		note "mounts left under $RUNDIR: $(awk -v d="$RUNDIR/" 'index($5, d) == 1 { print $5 }' \
			/proc/self/mountinfo | tr '\n' ' ')"
		return 1
	fi
}

## Accounts: up --users N (N > 1, with --separate-fs) -------------------------------------------
#
# Each of N grid users (the testbed CA's certificates "testbed user", "testbed user 2", ...) is
# mapped by the grid-mapfile to an unprivileged account of its own, qcg-user1 .. qcg-userN,
# which every host has, as a site administrator would have made it: a line in the host's own
# /etc/passwd, /etc/group and /etc/shadow (copies bind-mounted in the host's mount namespace,
# so the machine's files stay untouched) and a home directory (0700). The uids differ from host
# to host, as across institutions: nothing may rely on a uid being the same elsewhere. With
# N = 1 (the default) nothing here runs and the one user is mapped to root, as before.

# shellcheck disable=SC2034  # testbed-plan.sh checks --users against it
readonly TBFS_MAX_USERS=8
readonly TBFS_UID_BASE=41000 # the accounts' uids: base + 16 * host index + user number
# The group whose members may use the helper's local API socket (helper.socket_group): the job
# accounts, as qcg-deploy tells a site administrator to arrange. gid: base + 16 * host index.
readonly TBFS_JOBS_GROUP=qcg-jobs

tbfs_user_account() { printf 'qcg-user%d' "$1"; }

# The uid of user $2's account on host $1 (host index = its row in the host table).
tbfs_user_uid() {
	local i
	i=$(tb_rows | cut -f1 | grep -nxF -- "$1" | cut -d: -f1)
	[[ -n $i ]] || die "no host '$1' for an account"
	printf '%d' $((TBFS_UID_BASE + 16 * i + $2))
}

# Refuse accounts, groups or ids the machine already has: the copies would shadow them (u = 0
# is the group qcg-jobs's gid).
tbfs_accounts_check() {
	local u h uid
	! getent group "$TBFS_JOBS_GROUP" >/dev/null ||
		die "--users: the machine already has a group $TBFS_JOBS_GROUP"
	for ((u = 0; u <= USERS; u++)); do
		((u == 0)) || ! getent passwd "$(tbfs_user_account "$u")" >/dev/null ||
			die "--users: the machine already has an account $(tbfs_user_account "$u")"
		for h in $(tb_rows | cut -f1); do
			uid=$(tbfs_user_uid "$h" "$u")
			if getent passwd "$uid" >/dev/null || getent group "$uid" >/dev/null; then
				die "--users: uid or gid $uid is taken on this machine"
			fi
		done
	done
}

# Give host $1 the accounts of every user: its own passwd, group and shadow with their lines,
# bind-mounted over the machine's inside the host's mount namespace, and the home directories.
tbfs_make_accounts_on() {
	local h=$1 d=$RUNDIR/accounts/$1 u uid name f members=""
	mkdir -p "$d"
	for f in passwd group shadow; do cp -p "/etc/$f" "$d/$f"; done
	for ((u = 1; u <= USERS; u++)); do
		uid=$(tbfs_user_uid "$h" "$u") name=$(tbfs_user_account "$u")
		printf '%s:x:%d:%d:qcg-ompi testbed user %d:/home/%s:/bin/sh\n' \
			"$name" "$uid" "$uid" "$u" "$name" >>"$d/passwd"
		printf '%s:x:%d:\n' "$name" "$uid" >>"$d/group"
		printf '%s:!:%d:0:99999:7:::\n' "$name" $(($(date +%s) / 86400)) >>"$d/shadow"
		members+=${members:+,}$name
	done
	printf '%s:x:%d:%s\n' "$TBFS_JOBS_GROUP" "$(tbfs_user_uid "$h" 0)" "$members" >>"$d/group"
	for f in passwd group shadow; do
		nsenter --mount="$RUNDIR/mnt/$h" mount --bind "$d/$f" "/etc/$f" ||
			die "could not give host $h its own /etc/$f"
	done
	for ((u = 1; u <= USERS; u++)); do
		name=$(tbfs_user_account "$u")
		nsenter --mount="$RUNDIR/mnt/$h" install -d -m 0700 -o "$name" -g "$name" "/home/$name" ||
			die "could not make /home/$name on host $h"
	done
}

tbfs_make_accounts() {
	((USERS > 1)) || return 0
	tbfs_accounts_check
	local h
	for h in $(tb_rows | cut -f1); do tbfs_make_accounts_on "$h"; done
}


# The credentials of users 2..N (user 1's are made by tb_make_credentials), and a grid-mapfile
# that maps user k to account qcg-userk. Each user's files belong to the user's account on host
# user (the key and proxy 0600), where the user works; DIR/users/userk.env sets a client's
# environment for user k after DIR/env.
tbfs_users_credentials() {
	((USERS > 1)) || return 0
	local u base name uid cn
	mkdir -p "$DIR/users"
	: >"$DIR/etc/grid-mapfile.new"
	for ((u = 1; u <= USERS; u++)); do
		base=$DIR/certs/user cn=$USER_NAME
		if ((u > 1)); then
			base=$DIR/certs/user$u cn="$USER_NAME $u"
			tb_ca user --dir "$DIR/ca" --name "$cn" --out "$base"
			tb_ca proxy --cert "$base-cert.pem" --key "$base-key.pem" --out "$base-proxy.pem" \
				--hours "$USER_PROXY_HOURS"
		fi
		name=$(tbfs_user_account "$u") uid=$(tbfs_user_uid "$USER_HOST" "$u")
		"$CA_TOOL" grid-mapfile-line "$base-cert.pem" "$name" >>"$DIR/etc/grid-mapfile.new" ||
			die "qcg-ca grid-mapfile-line failed"
		chown "$uid:$uid" "$base-cert.pem" "$base-key.pem" "$base-proxy.pem"
		chmod 0600 "$base-key.pem" "$base-proxy.pem"
		{
			printf '# source me after %s/env: the client environment of %s (account %s)\n' \
				"$DIR" "$cn" "$name"
			printf 'X509_USER_PROXY=%q\n' "$base-proxy.pem"
			printf 'X509_USER_CERT=%q\n' "$base-cert.pem"
			printf 'X509_USER_KEY=%q\n' "$base-key.pem"
			printf 'QCG_TESTBED_ACCOUNT=%q\n' "$name"
			printf 'export X509_USER_PROXY X509_USER_CERT X509_USER_KEY QCG_TESTBED_ACCOUNT\n'
		} >"$DIR/users/user$u.env"
	done
	mv "$DIR/etc/grid-mapfile.new" "$DIR/etc/grid-mapfile"
}
