#!/bin/bash
# test_helper_launch_privsep.sh: every check of test_helper_launch.sh, with the helper
# privilege-separated (helper.user): Launch, ReadOutput, Signal, a daemonized process's
# signal and the kill at shutdown go through the root launcher while the SOAP half runs as
# the service account (daemon here) with no capability, which this test checks too.
[ "$(id -u)" -eq 0 ] || { echo "SKIP: privilege separation needs root"; exit 77; }
getent passwd daemon >/dev/null || { echo "SKIP: no account 'daemon' to run the helper as"; exit 77; }
export HELPER_SERVICE_USER=daemon
. "$top_srcdir/tests/integration/test_helper_launch.sh"
