/*
 * stage_node.c: the staging commands run on a node (stage_node.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stage_node.h"

char *stage_node_env[1] = { "PATH=/usr/bin:/bin" };

/* Enter the working directory ($1, created if needed) and refuse $2 when a symbolic link
 * would take it elsewhere. */
#define STAGE_ENTER                                                                       \
	"set -u\n"                                                                        \
	"wd=$1 p=$2\n"                                                                    \
	"mkdir -p -- \"$wd\" && cd -- \"$wd\" || exit 1\n"                                \
	"case $(realpath -m -- \"$p\") in\n"                                              \
	"\"$(pwd -P)/$p\") ;;\n"                                                          \
	"*) echo \"$p: refused: a symbolic link on its way leads elsewhere\" >&2; exit 1;;\n" \
	"esac\n"

/*
 * The clean-up trap and the signal traps go in before the temporary file or directory is
 * made, with its name still empty: a receiver signalled while it starts (the submitter's
 * Ctrl-C, a refused upload) left its file behind when the signal came between mktemp and the
 * trap (test_stage_put.sh, under load).
 *
 * Nor may a child make it: the helper signals the whole process group, so with `t=$(mktemp)`
 * a mktemp killed after creating the file and before printing its name would leave a file the
 * trap does not know (a window reasoned from the code; 2,200 forced kills never hit it: CI's
 * failure of stop 29 was the double TERM below). STAGE_MAKE_TEMP names the file first and then creates it with the shell's own
 * redirection under noclobber (O_EXCL), so the EXIT trap always knows what to remove. A name
 * already taken (a leftover of a receiver killed by SIGKILL) is cleared before the next is
 * tried; only a signal in that instant could remove the leftover, which is ours anyway.
 *
 * The clean-up ignores TERM, HUP and INT, and so does its rm (an ignored signal stays ignored
 * across exec): a receiver is often signalled twice, by the node's helper and by the
 * front-end when an upload breaks, and the second TERM killed the rm of the first's clean-up.
 */
#define STAGE_TRAPS(cleanup)                                                               \
	"t= d=\n"                                                                         \
	"trap 'trap \"\" TERM HUP INT; " cleanup "' EXIT\n"                               \
	"trap 'exit 143' TERM\n"                                                          \
	"trap 'exit 129' HUP\n"                                                           \
	"trap 'exit 130' INT\n"

/* Set $var to a new file or directory "base.<pid>.<k>" that `create $var` makes (see above);
 * why is the error when it cannot be made for any other reason than the name being taken. */
#define STAGE_MAKE_TEMP(var, base, create, why)                                            \
	"set -C; k=0\n"                                                                  \
	"until " var "=\"" base ".$$.$k\"; { command " create " \"$" var "\"; } 2>/dev/null; do\n" \
	"\t[ -e \"$" var "\" ] || { " var "=; echo \"" why "\" >&2; exit 1; }\n"            \
	"\t" var "= k=$((k + 1))\n"                                                       \
	"\t[ $k -lt 64 ] || { echo \"" why ": 64 names taken\" >&2; exit 1; }\n"         \
	"done\n"                                                                        \
	"set +C\n"

static char stage_in_script[] = STAGE_ENTER
	"size=$3 sum=$4 mode=$5\n"
	"mkdir -p -- \"$(dirname -- \"$p\")\" || exit 1\n"
	STAGE_TRAPS("[ -z \"$t\" ] || rm -f -- \"$t\"")
	STAGE_MAKE_TEMP("t", "$p.qcg-stage", ": >",
	    "$p: cannot create a temporary file beside it in $(pwd -P)")
	"got=$(tee -- \"$t\" | sha256sum) || exit 1\n"
	"got=${got%% *}\n"
	"n=$(wc -c < \"$t\")\n"
	"[ \"$n\" -eq \"$size\" ] || { echo \"$p: $n bytes arrived, $size were sent\" >&2; "
	"exit 1; }\n"
	"[ \"$got\" = \"$sum\" ] || { echo \"$p: checksum mismatch: SHA-256 $got arrived, $sum "
	"was sent\" >&2; exit 1; }\n"
	"chmod \"$mode\" -- \"$t\" && mv -f -- \"$t\" \"$p\" || exit 1\n"
	"trap - EXIT\n";

/* The digest is of the bytes as they leave: tee copies them to stdout and to a FIFO that
 * sha256sum reads. Not `tee /dev/fd/1`: re-opening the standard output by name is refused
 * (EACCES) when the pipe belongs to the helper's root launcher and the script runs as the
 * mapped account, and stage-out then sent nothing but a digest. */
static char stage_out_script[] = STAGE_ENTER
	"[ -f \"$p\" ] || { echo \"$p: no such file in $wd\" >&2; exit 1; }\n"
	STAGE_TRAPS("[ -z \"$d\" ] || rm -rf -- \"$d\"")
	STAGE_MAKE_TEMP("d", "${TMPDIR:-/tmp}/qcg-stage-out", "mkdir -m 700 --",
	    "$p: cannot create a temporary directory in ${TMPDIR:-/tmp}")
	"mkfifo -m 600 -- \"$d/fifo\" || exit 1\n"
	"{ sum=$(sha256sum < \"$d/fifo\") && echo \"${sum%% *}\" >&2; } &\n"
	"{ cat -- \"$p\" || : > \"$d/failed\"; } | tee -- \"$d/fifo\" || : > \"$d/failed\"\n"
	"wait $! || exit 1\n"
	"[ ! -e \"$d/failed\" ]\n";

int
stage_node_in_argv(const char *workdir, const char *path, uint64_t size, const char *sha256,
    bool executable, char num[STAGE_NODE_NUM_MAX], char *argv[STAGE_NODE_ARGV_MAX])
{
	snprintf(num, STAGE_NODE_NUM_MAX, "%" PRIu64, size);
	int n = 0;
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = stage_in_script;
	argv[n++] = "qcg-stage-in"; /* $0 */
	argv[n++] = (char *)workdir;
	argv[n++] = (char *)path;
	argv[n++] = num;
	argv[n++] = (char *)sha256;
	argv[n++] = executable ? "0700" : "0600";
	return n;
}

int
stage_node_out_argv(const char *workdir, const char *path, char *argv[STAGE_NODE_ARGV_MAX])
{
	int n = 0;
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = stage_out_script;
	argv[n++] = "qcg-stage-out";
	argv[n++] = (char *)workdir;
	argv[n++] = (char *)path;
	return n;
}

bool
stage_sha256_valid(const char *s)
{
	if (s == NULL || strlen(s) != 64)
		return false;
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}
