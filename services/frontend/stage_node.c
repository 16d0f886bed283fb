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
 * trap (test_stage_put.sh, under load). A trapped signal waits for the command substitution
 * to finish, so the name is set when the EXIT trap runs.
 */
#define STAGE_TRAPS(cleanup)                                                               \
	"t= d=\n"                                                                         \
	"trap '" cleanup "' EXIT\n"                                                       \
	"trap 'exit 143' TERM\n"                                                          \
	"trap 'exit 129' HUP\n"                                                           \
	"trap 'exit 130' INT\n"

static char stage_in_script[] = STAGE_ENTER
	"size=$3 sum=$4 mode=$5\n"
	"mkdir -p -- \"$(dirname -- \"$p\")\" || exit 1\n"
	STAGE_TRAPS("[ -z \"$t\" ] || rm -f -- \"$t\"")
	"t=$(mktemp -- \"$p.qcg-stage.XXXXXX\") || exit 1\n"
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
	"d=$(mktemp -d) || exit 1\n"
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
