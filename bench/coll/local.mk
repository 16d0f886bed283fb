# bench/coll: collectives benchmark (issue 7).
