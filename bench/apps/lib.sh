# lib.sh: what the application benches share (source it after bench/launch/common.sh, which sets
# QTB, TB and B). Each bench writes its own job descriptions and checks its own results.

# app_variant_env VARIANT: the job's environment for the "qcg" variant (coll/qcg's verbose
# selection line, which app_submit counts) and the "tuned" one (coll/qcg excluded).
app_variant_env() {
	case $1 in
	qcg) echo OMPI_MCA_coll_qcg_verbose=20 ;;
	tuned) echo OMPI_MCA_coll=^qcg ;;
	esac
}

# app_submit BENCH VARIANT ROUND JOB OUT: submit JOB from host user (mpirun inside the job) with
# its output in OUT, then require coll/qcg selected on all 6 ranks of the qcg variant and on
# none of the tuned one. Fails, saying why, otherwise.
app_submit() {
	local bench=$1 v=$2 r=$3 job=$4 out=$5 selected
	"$QTB" --dir "$TB" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_mpi_yield_when_idle=1 QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" \
		timeout 1800 "$B/launcher/qcg-submit" "$job" >"$out" 2>&1 8>&- ||
		{ tail -n 30 "$out" >&2; echo "$bench: $v round $r failed" >&2; return 1; }
	selected=$(grep -c "coll:qcg: comm MPI_COMM_WORLD (cid 0): selected" "$out" || true)
	case $v in
	qcg) [[ $selected == 6 ]] || { echo "$bench: coll/qcg selected on $selected of 6 ranks" >&2; return 1; } ;;
	tuned) [[ $selected == 0 ]] || { echo "$bench: coll/qcg selected in the tuned run" >&2; return 1; } ;;
	esac
}
